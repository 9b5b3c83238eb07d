-- Issue 20, after review: when each post's counts were last asked for, answered or not. A post
-- the platform no longer has (deleted, hidden) waits its turn like the others instead of
-- coming first every run.
create table post_metrics_checks (
  post_id bigint primary key references posts (id) on delete cascade,
  checked_at timestamptz not null
);
insert into post_metrics_checks (post_id, checked_at)
  select post_id, collected_at from post_metrics_latest;
