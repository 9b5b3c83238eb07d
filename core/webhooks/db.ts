// SQL for webhooks: the events, their endpoints, deliveries and the deliveries' attempts. The only code that reads or writes these tables; the jobs that send deliveries
// are queued through core/jobs/tasks.ts.
import type { Queryable } from '../db/pool.ts';
import type { WebhookEvent } from './schema.ts';

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

export type ClaimedRun = {
  /** This run's number among the delivery's runs that got as far as sending. */
  run: number;
  /** When the run was claimed, by the database's clock (the attempt's recorded start). */
  claimed_at: Date;
  attempts: number;
  url: string;
  secret: string;
  body: string;
};

/**
 * Claims a run of attempt `attempt` of a delivery: counts it among the delivery's runs, in the
 * statement that confirms the delivery is still pending at that attempt, and answers what the
 * run sends (the endpoint's address and secret, the event's exact bytes). Undefined when the
 * delivery is gone with its endpoint, settled, or at another attempt: nothing to send.
 */
export async function claimDeliveryRun(
  db: Queryable,
  deliveryId: string,
  attempt: number,
): Promise<ClaimedRun | undefined> {
  const { rows } = await db.query<ClaimedRun>(
    `update webhook_deliveries d set runs = d.runs + 1
     from webhook_endpoints w, events e
     where d.id = $1 and d.status = 'pending' and d.attempts = $2 - 1
       and w.id = d.endpoint_id and e.id = d.event_id
     returning d.runs as run, now() as claimed_at, d.attempts, w.url, w.secret, e.body`,
    [deliveryId, attempt],
  );
  return rows[0];
}

/**
 * Fails a pending delivery that will not be sent again, with `reason` as the error of its
 * attempt `attempt` (the delivery log says why). False when the delivery is no longer pending
 * at that attempt (settled meanwhile): nothing changed.
 */
export async function giveUpDelivery(
  db: Queryable,
  g: { deliveryId: string; attempt: number; reason: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `with d as (
       update webhook_deliveries set status = 'failed', attempts = $2::int
       where id = $1 and status = 'pending' and attempts = $2::int - 1
       returning id
     )
     insert into webhook_attempts (delivery_id, attempt, attempted_at, duration_ms, status_code, error)
     select id, $2::int, now(), 0, null, $3 from d`,
    [g.deliveryId, g.attempt, g.reason],
  );
  return rowCount === 1;
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

export type StrandedDelivery = {
  id: string;
  attempts: number;
  runs: number;
  /** Its job's runs when that job is out of runs (failed for good); null when it is gone. */
  job_runs: number | null;
  /** The error of that job's last run, for the operator's log (never the account's). */
  job_error: string | null;
};

/**
 * Pending deliveries that no job will ever run again: their job (read through Graphile
 * Worker's public `jobs` view, by `keyPrefix` plus the delivery's id) is gone, or is out of
 * runs and not running.
 */
export async function strandedDeliveries(
  db: Queryable,
  keyPrefix: string,
): Promise<StrandedDelivery[]> {
  const { rows } = await db.query<StrandedDelivery>(
    `select d.id, d.attempts, d.runs, g.attempts as job_runs, g.last_error as job_error
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

/** An event as its deliveries fan out from it. */
export type EventRow = { id: string; account_id: string; type: string };

/** Records events, their bodies serialized already; `postId` ties a post's event to it. */
export async function insertEvents(
  db: Queryable,
  events: readonly { accountId: string; type: WebhookEvent; body: string; postId?: string }[],
): Promise<EventRow[]> {
  if (!events.length) return [];
  const { rows } = await db.query<EventRow>(
    `insert into events (account_id, type, post_id, body)
     select * from unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[])
     returning id::text, account_id::text, type`,
    [
      events.map((e) => e.accountId),
      events.map((e) => e.type),
      events.map((e) => e.postId ?? null),
      events.map((e) => e.body),
    ],
  );
  return rows;
}
