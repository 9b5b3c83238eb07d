-- Issue 17, item 7: the history import reads a brand's past posts as a job of its own kind.
alter table jobs drop constraint jobs_kind_check;
alter table jobs add constraint jobs_kind_check
  check (kind in ('video_export', 'video_preview', 'generation', 'draft_week', 'history_import'));
