-- Media library facts probed from the bytes (the media issue): where the bytes live, their
-- digest, dimensions and duration, and the thumbnail.
alter table assets
  add column sha256 text,
  add column width int,
  add column height int,
  add column duration_s numeric,
  add column storage_key text,
  add column thumb_key text;
create index assets_filename_idx on assets (account_id, lower(filename) text_pattern_ops);
