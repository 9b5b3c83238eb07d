-- The reconciler looks for pending deliveries whose job can no longer run (core/webhooks/db.ts
-- strandedDeliveries) every minute: only the pending few are indexed, not the delivery log.
create index webhook_deliveries_pending_idx on webhook_deliveries (id) where status = 'pending';
