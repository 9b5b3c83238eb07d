// SQL for webhooks: endpoints, deliveries and their attempts, and the events as deliveries
// read them. The only code that reads or writes these tables; the jobs that send deliveries
// are queued through core/jobs/tasks.ts.
import type { Queryable } from '../db/pool.ts';

export type EndpointRow = { id: string; url: string; events: string[]; created_at: Date };

/**
 * Inserts an endpoint unless the account has `max` already. The account's row lock makes
 * the count and the insert one step; call it in a transaction.
 */
export async function insertEndpointWithin(
  tx: Queryable,
  max: number,
  e: { accountId: string; url: string; events: string[]; secret: string },
): Promise<EndpointRow | 'limit_reached'> {
  await tx.query('select 1 from accounts where id = $1 for update', [e.accountId]);
  const { rows } = await tx.query<{ n: number }>(
    'select count(*)::int as n from webhook_endpoints where account_id = $1',
    [e.accountId],
  );
  if (rows[0]!.n >= max) return 'limit_reached';
  const inserted = await tx.query<EndpointRow>(
    `insert into webhook_endpoints (account_id, url, events, secret) values ($1, $2, $3, $4)
     returning id, url, events, created_at`,
    [e.accountId, e.url, e.events, e.secret],
  );
  return inserted.rows[0]!;
}

export async function listEndpointRows(db: Queryable, accountId: string): Promise<EndpointRow[]> {
  const { rows } = await db.query<EndpointRow>(
    'select id, url, events, created_at from webhook_endpoints where account_id = $1 order by id',
    [accountId],
  );
  return rows;
}

/** Deletes the account's endpoint (its deliveries cascade); false when it has none such. */
export async function deleteEndpointRow(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'delete from webhook_endpoints where id = $1 and account_id = $2',
    [id, accountId],
  );
  return rowCount === 1;
}

export async function endpointExists(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'select 1 from webhook_endpoints where id = $1 and account_id = $2',
    [id, accountId],
  );
  return rowCount === 1;
}

export type AttemptRow = {
  delivery_id: string;
  event: string;
  attempt: number;
  attempted_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  delivery_status: 'pending' | 'delivered' | 'failed';
  replay_of: string | null;
};

/** An endpoint's attempts, newest first. */
export async function listAttemptRows(
  db: Queryable,
  endpointId: string,
  limit: number,
): Promise<AttemptRow[]> {
  const { rows } = await db.query<AttemptRow>(
    `select t.delivery_id, e.type as event, t.attempt, t.attempted_at, t.duration_ms,
            t.status_code, t.error, d.status as delivery_status, d.replay_of
     from webhook_attempts t
     join webhook_deliveries d on d.id = t.delivery_id
     join events e on e.id = d.event_id
     where d.endpoint_id = $1
     order by t.id desc limit $2`,
    [endpointId, limit],
  );
  return rows;
}

/**
 * One delivery per event and endpoint of the event's account subscribed to its type.
 * Answers the new deliveries' ids.
 */
export async function insertEventDeliveries(
  db: Queryable,
  events: readonly { id: string; account_id: string; type: string }[],
): Promise<string[]> {
  if (!events.length) return [];
  const { rows } = await db.query<{ id: string }>(
    `insert into webhook_deliveries (account_id, endpoint_id, event_id)
     select ev.account_id, w.id, ev.id
     from unnest($1::bigint[], $2::bigint[], $3::text[]) as ev(id, account_id, type)
     join webhook_endpoints w on w.account_id = ev.account_id and ev.type = any (w.events)
     returning id`,
    [events.map((e) => e.id), events.map((e) => e.account_id), events.map((e) => e.type)],
  );
  return rows.map((r) => r.id);
}

/** A new delivery of the same event to the same endpoint; undefined when none such. */
export async function insertReplay(
  db: Queryable,
  q: { accountId: string; endpointId: string; deliveryId: string },
): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `insert into webhook_deliveries (account_id, endpoint_id, event_id, replay_of)
     select account_id, endpoint_id, event_id, id from webhook_deliveries
     where id = $1 and endpoint_id = $2 and account_id = $3
     returning id`,
    [q.deliveryId, q.endpointId, q.accountId],
  );
  return rows[0]?.id;
}

export type DeliveryToSend = {
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  url: string;
  secret: string;
  body: string;
};

/** What an attempt sends: the endpoint's address and secret and the event's exact bytes. */
export async function findDeliveryToSend(
  db: Queryable,
  deliveryId: string,
): Promise<DeliveryToSend | undefined> {
  const { rows } = await db.query<DeliveryToSend>(
    `select d.status, d.attempts, w.url, w.secret, e.body
     from webhook_deliveries d
     join webhook_endpoints w on w.id = d.endpoint_id
     join events e on e.id = d.event_id
     where d.id = $1`,
    [deliveryId],
  );
  return rows[0];
}

/** The attempt's row and the delivery's new state, in one statement. */
export async function recordAttempt(
  db: Queryable,
  a: {
    deliveryId: string;
    attempt: number;
    attemptedAt: Date;
    durationMs: number;
    statusCode: number | null;
    error: string | null;
    deliveryStatus: 'pending' | 'delivered' | 'failed';
  },
): Promise<void> {
  await db.query(
    `with a as (
       insert into webhook_attempts (delivery_id, attempt, attempted_at, duration_ms, status_code, error)
       values ($1, $2, $3, $4, $5, $6)
     )
     update webhook_deliveries set attempts = $2, status = $7 where id = $1`,
    [a.deliveryId, a.attempt, a.attemptedAt, a.durationMs, a.statusCode, a.error, a.deliveryStatus],
  );
}

/**
 * Pending deliveries that no job will ever run again: their job (read through Graphile
 * Worker's public `jobs` view, by `keyPrefix` plus the delivery's id) is gone, or is out of
 * runs and not running. Each with the attempts it has recorded.
 */
export async function strandedDeliveries(
  db: Queryable,
  keyPrefix: string,
): Promise<{ id: string; attempts: number }[]> {
  const { rows } = await db.query<{ id: string; attempts: number }>(
    `select d.id, d.attempts
     from webhook_deliveries d
     left join graphile_worker.jobs g on g.key = $1 || d.id
     where d.status = 'pending'
       and (g.id is null or (g.attempts >= g.max_attempts and g.locked_at is null))
     order by d.id
     limit 500`,
    [keyPrefix],
  );
  return rows;
}
