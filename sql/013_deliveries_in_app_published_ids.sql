-- Webhook fan-out moves into the application (core/webhooks/delivery.ts queueEventDeliveries,
-- in the transaction that writes the event), so that a task's name is spelled only in the
-- task catalogue (core/jobs/tasks.ts) and not in SQL as well.
drop function enqueue_event_deliveries(bigint, bigint, text);

-- A post is `published` only under the platform's id of it. A connector that took a 2xx
-- answer without the documented JSON recorded the string "undefined" (or nothing): whether
-- the platform has such a post is unknown, so those posts become `failed` with the reason,
-- each with its audit row, and the check keeps it so.
with repaired as (
  update posts set status = 'failed', published_at = null, external_post_id = null,
                   error = 'The platform''s answer carried no id of the post, so it was ' ||
                           'recorded without one; check the account for the post before ' ||
                           'scheduling it again.',
                   updated_at = now()
  where status = 'published'
    and (external_post_id is null or btrim(external_post_id) in ('', 'undefined', 'null'))
  returning account_id, id, error
)
insert into audit_log (account_id, post_id, action, from_status, to_status, actor_kind, detail)
select account_id, id, 'failed', 'published', 'failed', 'system',
       jsonb_build_object('migration', '013', 'error', error)
from repaired;

alter table posts add constraint posts_published_has_external_id
  check (status <> 'published' or btrim(coalesce(external_post_id, '')) <> '');
