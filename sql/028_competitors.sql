-- Issue 20, item 4: the competitor profiles a brand tracks (platform and handle), at most 20
-- a brand (checked by core/competitors/), added and removed through the dashboard session.
create table competitors (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  platform text not null check (platform in (
    'bluesky', 'mastodon', 'x', 'linkedin', 'threads', 'instagram', 'facebook', 'tiktok',
    'youtube', 'pinterest')),
  handle text not null check (char_length(handle) between 1 and 200),
  created_at timestamptz not null default now(),
  unique (brand_id, platform, handle)
);
create index competitors_account_idx on competitors (account_id, brand_id, id);
