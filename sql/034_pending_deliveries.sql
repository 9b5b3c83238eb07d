-- Every minute, pending deliveries whose job can no longer run are looked for and queued again
-- (core/webhooks/db.ts strandedDeliveries): only the pending few are indexed, not the log.
create index webhook_deliveries_pending_idx on webhook_deliveries (id) where status = 'pending';
