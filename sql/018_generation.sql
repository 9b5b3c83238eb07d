-- Issue 17, items 1-3: what drafts are generated from (a fetched URL's article, or a text) and
-- the drafts' link to it; generation runs as a job of the `generate` pool.
create table sources (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  kind text not null check (kind in ('url', 'text')),
  url text check (char_length(url) <= 2000),
  title text check (char_length(title) <= 500),
  -- Empty until a URL's page was fetched and its article extracted (by the job).
  text text not null default '' check (char_length(text) <= 200000),
  site_name text check (char_length(site_name) <= 200),
  lang text check (char_length(lang) <= 35),
  content_hash text check (char_length(content_hash) = 64),
  fetched_at timestamptz,
  created_at timestamptz not null default now(),
  check ((kind = 'url') = (url is not null))
);

-- The same URL within 24 hours reuses its source.
create index sources_url_idx on sources (account_id, brand_id, url, created_at desc)
  where kind = 'url';
create index sources_brand_idx on sources (brand_id);

alter table posts add column source_id bigint references sources (id) on delete set null;
create index posts_source_idx on posts (source_id) where source_id is not null;

alter table jobs drop constraint jobs_kind_check;
alter table jobs add constraint jobs_kind_check
  check (kind in ('video_export', 'video_preview', 'generation'));
