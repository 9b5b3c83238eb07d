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

-- Each post's latest counts, kept beside the series by every collection: what analytics and
-- best times read (one row a post, however long the series). Engagement is the post's
-- interactions: likes + reposts + replies + quotes.
create table post_metrics_latest (
  post_id bigint primary key references posts (id) on delete cascade,
  collected_at timestamptz not null,
  likes int not null check (likes >= 0),
  reposts int not null check (reposts >= 0),
  replies int not null check (replies >= 0),
  quotes int check (quotes >= 0),
  views bigint check (views >= 0),
  engagement int generated always as (likes + reposts + replies + coalesce(quotes, 0)) stored
);

-- A brand's published posts by time (analytics, best times).
create index posts_published_idx on posts (brand_id, published_at) where status = 'published';
