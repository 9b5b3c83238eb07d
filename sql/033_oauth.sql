-- Issue 23: OAuth sign-in for MCP clients (core/oauth/). oidc-provider keeps its state here
-- (clients registered, authorization codes, access and refresh tokens, grants, interactions,
-- sessions): one row per model instance, its payload as the provider gives it. The id is the
-- token value for opaque tokens, so a bearer lookup is one primary-key read.
create table oauth_payloads (
  model text not null,
  id text not null,
  payload jsonb not null,
  grant_id text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  primary key (model, id)
);
create index oauth_payloads_grant_idx on oauth_payloads (grant_id) where grant_id is not null;
create index oauth_payloads_uid_idx on oauth_payloads (uid) where uid is not null;
create index oauth_payloads_expiry_idx on oauth_payloads (expires_at) where expires_at is not null;

-- What a person allowed a client on the consent page, one row per grant: the brand its tokens
-- default to, the scopes ticked, and the last use, for the dashboard's authorized clients.
-- Deleting the account deletes its grants; revoking one deletes the row and its tokens.
create table oauth_grants (
  grant_id text primary key,
  account_id bigint not null references accounts (id) on delete cascade,
  client_id text not null,
  client_name text,
  brand_id bigint references brands (id) on delete set null,
  scopes text[] not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index oauth_grants_account_idx on oauth_grants (account_id, created_at desc);
