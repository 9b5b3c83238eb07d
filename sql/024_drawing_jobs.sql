-- Issue 19, item 3: a drawing exported (a PNG or SVG file kept an hour, served by a signed
-- address) or saved as a library image is drawn by a render worker while the API waits on
-- its job record.
alter table jobs drop constraint jobs_kind_check;
alter table jobs add constraint jobs_kind_check
  check (kind in ('video_export', 'video_preview', 'generation', 'draft_week', 'history_import',
                  'genome', 'drawing_export', 'drawing_save'));
