-- The dashboard's OAuth connect flows (core/connectFlows/): one row from "Connect X" to the
-- platform's callback. Only the state's SHA-256 is kept, so a leaked table cannot finish a
-- flow; the PKCE verifier is sealed with the credentials key, as tokens are. A flow belongs to
-- the session that started it (gone with it), expires after 10 minutes, and is consumed once.
create table connect_flows (
  id bigint generated always as identity primary key,
  state_hash bytea not null unique,
  session_id bigint not null references sessions (id) on delete cascade,
  account_id bigint not null references accounts (id) on delete cascade,
  brand_id bigint not null references brands (id) on delete cascade,
  platform text not null check (platform in (
    'x', 'linkedin', 'threads', 'instagram', 'facebook', 'tiktok', 'youtube', 'pinterest')),
  code_verifier bytea,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  consumed_at timestamptz
);
create index connect_flows_session_idx on connect_flows (session_id);
create index connect_flows_account_idx on connect_flows (account_id);
create index connect_flows_brand_idx on connect_flows (brand_id);
