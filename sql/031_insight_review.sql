-- Issue 20, after review.
-- When each post's counts were last asked for, answered or not: a post the platform no longer
-- has (deleted, hidden) waits its turn like the others instead of coming first every run.
create table post_metrics_checks (
  post_id bigint primary key references posts (id) on delete cascade,
  checked_at timestamptz not null
);
insert into post_metrics_checks (post_id, checked_at)
  select post_id, collected_at from post_metrics_latest;

-- A reported breakout is known by competitor_breakouts alone (migration 030).
alter table competitor_posts drop column breakout_at;
alter table competitor_breakouts add constraint competitor_breakouts_platform_check
  check (platform in ('bluesky', 'mastodon', 'x', 'linkedin', 'threads', 'instagram',
                      'facebook', 'tiktok', 'youtube', 'pinterest'));
