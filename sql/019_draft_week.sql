-- Issue 17, item 4: draft_week writes a week of drafts, each with the slot it suggests (still
-- a draft: nothing is scheduled until schedule_post), as a job of its own kind.
alter table posts add column suggested_for timestamptz;

alter table jobs drop constraint jobs_kind_check;
alter table jobs add constraint jobs_kind_check
  check (kind in ('video_export', 'video_preview', 'generation', 'draft_week'));
