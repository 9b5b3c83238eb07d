-- When a connection stops working without its owner: the access token's expiry, the refresh
-- token's (LinkedIn, TikTok, Pinterest say it), and whether the access token can be renewed
-- at all (LinkedIn without a partner refresh token cannot: it lasts its 60 days). Null: the
-- platform did not say, or it never expires. Written on connect and on every refresh, so the
-- Accounts page and list_accounts can ask for a reconnect before it is too late.
alter table connected_accounts
  add column token_expires_at timestamptz,
  add column refresh_expires_at timestamptz,
  add column refreshable boolean not null default true;
