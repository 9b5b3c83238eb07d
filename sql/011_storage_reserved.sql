-- Chunked uploads reserve their announced size at init (issue 14, finding 5): the
-- reservation counts against the quota beside storage_used_bytes until finish turns it into
-- the asset's bytes or the expired session is cleaned. Rendered pages were not counted before
-- (finding 6), so every account's counter is recounted from its assets.
alter table accounts add column storage_reserved_bytes bigint not null default 0
  check (storage_reserved_bytes >= 0);
update accounts a set
  storage_used_bytes = coalesce((select sum(bytes) from assets where account_id = a.id), 0),
  storage_reserved_bytes =
    coalesce((select sum(size_bytes) from upload_sessions where account_id = a.id), 0);
