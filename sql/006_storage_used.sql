-- Storage used per account, kept with every asset insert and delete in the same statement:
-- the quota check is one atomic, row-locked update instead of a sum under a lock.
alter table accounts add column storage_used_bytes bigint not null default 0
  check (storage_used_bytes >= 0);
update accounts a set storage_used_bytes = coalesce(
  (select sum(bytes) from assets where account_id = a.id), 0);
