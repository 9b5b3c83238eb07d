-- Accounts, brands, feature gates, API keys, dashboard sessions, the shared request budget
-- and login throttling (CONTRACT.md: "Accounts, plans, brands, keys").

create table accounts (
  id bigint generated always as identity primary key,
  email text not null,
  password_hash text not null,
  plan text not null default 'free' check (plan in ('free', 'plus', 'pro', 'business')),
  credits bigint not null default 0 check (credits >= 0),
  -- Overrides the plan's request budget (operator CLI `account budget`).
  budget_per_minute int check (budget_per_minute > 0),
  selected_brand_id bigint,
  created_at timestamptz not null default now()
);
create unique index accounts_email_key on accounts (lower(email));

create table brands (
  id bigint generated always as identity primary key,
  uuid uuid not null default gen_random_uuid() unique,
  account_id bigint not null references accounts (id) on delete cascade,
  name text not null,
  timezone text not null default 'UTC',
  created_at timestamptz not null default now()
);
create index brands_account_idx on brands (account_id);

alter table accounts
  add constraint accounts_selected_brand_fk foreign key (selected_brand_id)
  references brands (id) on delete set null;

create table account_features (
  account_id bigint not null references accounts (id) on delete cascade,
  feature text not null
    check (feature in ('engagement_inbox', 'agent_tasks', 'video_templates', 'parked_video')),
  granted_at timestamptz not null default now(),
  primary key (account_id, feature)
);

create table api_keys (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  name text not null default '',
  -- SHA-256 of the whole key; the key itself is never stored.
  key_hash bytea not null unique,
  scopes text[] not null
    check (scopes <@ array['read', 'publish', 'media', 'generate', 'engage']::text[]),
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index api_keys_account_idx on api_keys (account_id);

create table sessions (
  id bigint generated always as identity primary key,
  token_hash bytea not null unique,
  account_id bigint not null references accounts (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_account_idx on sessions (account_id);
create index sessions_expiry_idx on sessions (expires_at);

-- The request budget: one fixed one-minute window per account, shared by every API process.
-- Each process counts in memory and adds its counts here every 100 ms (core/auth/budget.ts),
-- reading back the shared total. UNLOGGED: no WAL, so these frequent commits need no fsync;
-- a crash merely restarts the current minute.
create unlogged table request_budgets (
  account_id bigint primary key references accounts (id) on delete cascade,
  window_start timestamptz not null,
  used int not null
);

-- Failed logins per subject ('email:<lower email>' or 'ip:<address>').
create table login_failures (
  subject text primary key,
  failures int not null,
  last_failure_at timestamptz not null
);
