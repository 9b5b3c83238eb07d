-- Issue 20, item 4: a profile's breakout rule (ratio and floor, the issue's defaults), and the
-- posts an account was told about: one competitor.breakout a post, ever, even when the profile
-- is removed and added again or two of the account's brands track it. A post is known by its
-- address (a Mastodon id means something on one instance only), or its id where it has none.
alter table competitors
  add column ratio numeric(6, 2) not null default 3 check (ratio between 1 and 1000),
  add column floor int not null default 20 check (floor between 1 and 1000000000);

create table competitor_breakouts (
  account_id bigint not null references accounts (id) on delete cascade,
  platform text not null check (platform in (
    'bluesky', 'mastodon', 'x', 'linkedin', 'threads', 'instagram', 'facebook', 'tiktok',
    'youtube', 'pinterest')),
  post_key text not null check (char_length(post_key) between 1 and 2000),
  reported_at timestamptz not null default now(),
  primary key (account_id, platform, post_key)
);

-- Reported breakouts are known by competitor_breakouts alone.
alter table competitor_posts drop column breakout_at;
