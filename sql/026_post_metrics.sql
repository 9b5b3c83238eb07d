-- Issue 20, items 1-2: engagement of our published posts as the platforms count it, collected
-- on a schedule (core/metrics/). A time series: one row per post per collection, so growth
-- can be shown; a platform that does not count quotes or views leaves them null.
create table post_metrics (
  id bigint generated always as identity primary key,
  post_id bigint not null references posts (id) on delete cascade,
  collected_at timestamptz not null default now(),
  likes int not null check (likes >= 0),
  reposts int not null check (reposts >= 0),
  replies int not null check (replies >= 0),
  quotes int check (quotes >= 0),
  views bigint check (views >= 0)
);
create index post_metrics_post_idx on post_metrics (post_id, collected_at desc);
