-- Issue 19: a drawing's strokes (up to 200,000 points, megabytes of JSON) are read only to
-- draw or change them. Listings read the counts kept beside them; a worker reads the strokes
-- as the text stored, which `json` keeps as given (jsonb would rebuild it from its binary
-- form on every read) and hands to its render thread unparsed.
alter table drawings
  add column stroke_count int not null default 0 check (stroke_count between 0 and 2000),
  add column point_count int not null default 0 check (point_count between 0 and 200000);
update drawings set
  stroke_count = jsonb_array_length(strokes),
  point_count = coalesce(
    (select sum(jsonb_array_length(s -> 'points')) from jsonb_array_elements(strokes) s), 0);

alter table drawings drop constraint drawings_strokes_check;
alter table drawings alter column strokes drop default;
alter table drawings alter column strokes type json using strokes::json;
alter table drawings alter column strokes set default '[]';
alter table drawings add constraint drawings_strokes_check check (json_typeof(strokes) = 'array');
