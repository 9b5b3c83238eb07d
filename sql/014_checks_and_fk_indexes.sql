-- Issue 15, item 6. The enumerated columns that still took any text get CHECKs, like the
-- statuses and plans: their values are the TypeScript constants (core/platforms/
-- capabilities.ts PLATFORMS and KINDS, core/webhooks/schema.ts WEBHOOK_EVENTS), and
-- test/db/schema.test.ts fails when a list here and its constant differ. A later change of a
-- constant needs a new migration that drops and re-adds the check.
alter table posts
  add constraint posts_platform_check check (platform in (
    'bluesky', 'mastodon', 'x', 'linkedin', 'threads', 'instagram', 'facebook', 'tiktok',
    'youtube', 'pinterest')),
  add constraint posts_kind_check check (kind in (
    'text', 'image', 'video', 'carousel', 'story', 'reel', 'thread'));

alter table connected_accounts
  add constraint connected_accounts_platform_check check (platform in (
    'bluesky', 'mastodon', 'x', 'linkedin', 'threads', 'instagram', 'facebook', 'tiktok',
    'youtube', 'pinterest'));

alter table events
  add constraint events_type_check check (type in (
    'post.published', 'post.failed', 'competitor.breakout'));

alter table webhook_endpoints
  add constraint webhook_endpoints_events_check check (cardinality(events) > 0 and events <@ array[
    'post.published', 'post.failed', 'competitor.breakout']::text[]);

-- Foreign keys without an index: deleting the referenced row (a brand, an account, an event)
-- scanned the whole referencing table to cascade or set null, and lookups by them scanned too.
-- test/db/schema.test.ts lists every foreign key without a supporting index and fails on one.
create index accounts_selected_brand_idx on accounts (selected_brand_id)
  where selected_brand_id is not null;
create index assets_brand_idx on assets (brand_id) where brand_id is not null;
create index connected_accounts_account_idx on connected_accounts (account_id);
create index designs_brand_idx on designs (brand_id);
create index upload_sessions_account_idx on upload_sessions (account_id);
create index upload_sessions_brand_idx on upload_sessions (brand_id) where brand_id is not null;
create index webhook_deliveries_account_idx on webhook_deliveries (account_id);
create index webhook_deliveries_event_idx on webhook_deliveries (event_id);
create index webhook_deliveries_replay_of_idx on webhook_deliveries (replay_of)
  where replay_of is not null;
