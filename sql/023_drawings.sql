-- Issue 19, item 1: a brand's freehand drawings (core/drawings/). The strokes are one JSON
-- array, validated by the API (at most 2,000 strokes and 200,000 points); `version` counts the
-- saved states for optimistic concurrency.
create table drawings (
  id bigserial primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  title text not null check (length(title) between 1 and 200),
  width int not null check (width between 1 and 4096),
  height int not null check (height between 1 and 4096),
  background text not null,
  strokes jsonb not null default '[]' check (jsonb_typeof(strokes) = 'array'),
  version int not null default 1 check (version >= 1),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index drawings_account_brand_idx on drawings (account_id, brand_id, id desc);
create index drawings_brand_idx on drawings (brand_id);
