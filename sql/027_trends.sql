-- Issue 20, item 2: what is trending where a brand posts, collected hourly through each
-- connected account's platform (a Mastodon instance's trending tags). A row per topic per
-- collection; list_trends answers the latest collection. Topic text is written by third
-- parties: stored as given, answered under `untrusted`.
create table trends (
  id bigint generated always as identity primary key,
  connected_account_id bigint not null references connected_accounts (id) on delete cascade,
  collected_at timestamptz not null,
  rank int not null check (rank >= 1),
  topic text not null check (char_length(topic) between 1 and 500),
  url text check (char_length(url) <= 2000),
  volume int not null check (volume >= 0)
);
create index trends_account_idx on trends (connected_account_id, collected_at desc, rank);
