-- Every minute, pending deliveries whose job can no longer run are looked for and queued again
-- (core/webhooks/db.ts strandedDeliveries): only the pending few are indexed, not the log.
create index webhook_deliveries_pending_idx on webhook_deliveries (id) where status = 'pending';

-- The runs of a delivery that got as far as sending: its attempts and the runs cut short
-- before their outcome was recorded. Past a bound the delivery fails instead of being sent
-- again (core/webhooks/delivery.ts MAX_DELIVERY_RUNS).
alter table webhook_deliveries add column runs int not null default 0 check (runs >= 0);
