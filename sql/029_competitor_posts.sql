-- Issue 20, item 4: the posts of tracked competitor profiles, read hourly with their counts,
-- and when one broke out (one competitor.breakout event a post, ever: breakout_at is set once).
create table competitor_posts (
  id bigint generated always as identity primary key,
  competitor_id bigint not null references competitors (id) on delete cascade,
  external_id text not null check (char_length(external_id) between 1 and 200),
  posted_at timestamptz not null,
  permalink text check (char_length(permalink) <= 2000),
  caption text not null,
  likes int not null check (likes >= 0),
  reposts int not null check (reposts >= 0),
  replies int not null check (replies >= 0),
  engagement int generated always as (likes + reposts + replies) stored,
  read_at timestamptz not null default now(),
  breakout_at timestamptz,
  unique (competitor_id, external_id)
);
create index competitor_posts_profile_idx on competitor_posts (competitor_id, posted_at desc);
