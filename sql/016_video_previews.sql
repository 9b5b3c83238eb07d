-- Issue 16, item 6: poster frames of a video design (MCP preview_design with times) are drawn
-- by a render-pool worker as a job of their own kind; its result holds the frames, and the
-- minutely cron deletes such jobs an hour after they finish.
alter table jobs drop constraint jobs_kind_check;
alter table jobs add constraint jobs_kind_check check (kind in ('video_export', 'video_preview'));
create index jobs_finished_previews_idx on jobs (finished_at) where kind = 'video_preview';
