// Webhook endpoints: created and removed from a dashboard session, at most five per account,
// each URL checked by the outbound guard at creation (and again at every delivery).
import { randomBytes } from 'node:crypto';
import { API_PLAN, planAtLeast } from '../accounts/plans.ts';
import type { Principal } from '../auth/principal.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { conflict, invalid, notFound, planRequired } from '../errors.ts';
import { isId } from '../ids.ts';
import { type OutboundPolicy, OutboundRefused, resolveChecked } from '../outbound/guard.ts';
import {
  type CreateWebhookInput,
  type DeliveryAttempt,
  MAX_ENDPOINTS,
  WEBHOOK_EVENTS,
  type WebhookCreated,
  type WebhookEndpoint,
} from './schema.ts';

type EndpointRow = { id: string; url: string; events: string[]; created_at: Date };

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  events: r.events as WebhookEndpoint['events'],
  created_at: r.created_at.toISOString(),
});

export async function createEndpoint(
  pool: Pool,
  principal: Principal,
  input: CreateWebhookInput,
  policy: OutboundPolicy,
): Promise<WebhookCreated> {
  if (!planAtLeast(principal.plan, API_PLAN)) throw planRequired(API_PLAN);
  try {
    await resolveChecked(input.url, policy);
  } catch (err) {
    if (err instanceof OutboundRefused) throw invalid(['body', 'url'], err.message);
    throw err;
  }
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  const events = input.events ?? [...WEBHOOK_EVENTS];
  const row = await withTransaction(pool, async (tx) => {
    // The account row lock makes the count and the insert one step.
    await tx.query('select 1 from accounts where id = $1 for update', [principal.accountId]);
    const { rows } = await tx.query<{ n: number }>(
      'select count(*)::int as n from webhook_endpoints where account_id = $1',
      [principal.accountId],
    );
    if (rows[0]!.n >= MAX_ENDPOINTS)
      throw conflict(
        'webhook_limit',
        `An account has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`,
      );
    const inserted = await tx.query<EndpointRow>(
      `insert into webhook_endpoints (account_id, url, events, secret) values ($1, $2, $3, $4)
       returning id, url, events, created_at`,
      [principal.accountId, input.url, events, secret],
    );
    return inserted.rows[0]!;
  });
  return { ...toEndpoint(row), secret };
}

export async function listEndpoints(pool: Pool, accountId: string): Promise<WebhookEndpoint[]> {
  const { rows } = await pool.query<EndpointRow>(
    'select id, url, events, created_at from webhook_endpoints where account_id = $1 order by id',
    [accountId],
  );
  return rows.map(toEndpoint);
}

/** Deletes an endpoint; its pending deliveries go with it and are never sent. */
export async function deleteEndpoint(pool: Pool, accountId: string, id: string): Promise<void> {
  const { rowCount } = isId(id)
    ? await pool.query('delete from webhook_endpoints where id = $1 and account_id = $2', [
        id,
        accountId,
      ])
    : { rowCount: 0 };
  if (!rowCount) throw notFound('Webhook endpoint');
}

async function requireEndpoint(pool: Pool, accountId: string, id: string) {
  const { rowCount } = isId(id)
    ? await pool.query('select 1 from webhook_endpoints where id = $1 and account_id = $2', [
        id,
        accountId,
      ])
    : { rowCount: 0 };
  if (!rowCount) throw notFound('Webhook endpoint');
}

/** The endpoint's delivery log: one row an attempt, newest first. */
export async function listAttempts(
  pool: Pool,
  accountId: string,
  endpointId: string,
  limit = 100,
): Promise<DeliveryAttempt[]> {
  await requireEndpoint(pool, accountId, endpointId);
  const { rows } = await pool.query(
    `select t.delivery_id, e.type as event, t.attempt, t.attempted_at, t.duration_ms,
            t.status_code, t.error, d.status as delivery_status, d.replay_of
     from webhook_attempts t
     join webhook_deliveries d on d.id = t.delivery_id
     join events e on e.id = d.event_id
     where d.endpoint_id = $1
     order by t.id desc limit $2`,
    [endpointId, limit],
  );
  return rows.map((r) => ({ ...r, attempted_at: r.attempted_at.toISOString() }));
}

/** Sends a delivery's event again, as a new delivery with the same body. */
export async function replayDelivery(
  pool: Pool,
  accountId: string,
  endpointId: string,
  deliveryId: string,
): Promise<{ delivery_id: string }> {
  await requireEndpoint(pool, accountId, endpointId);
  if (!isId(deliveryId)) throw notFound('Delivery');
  const { rows } = await pool.query<{ id: string }>(
    `with d as (
       insert into webhook_deliveries (account_id, endpoint_id, event_id, replay_of)
       select account_id, endpoint_id, event_id, id from webhook_deliveries
       where id = $1 and endpoint_id = $2 and account_id = $3
       returning id
     )
     select d.id, graphile_worker.add_job('deliver_webhook',
              json_build_object('delivery_id', d.id::text, 'attempt', 1),
              job_key := 'deliver_webhook:' || d.id, max_attempts := 1) is not null as queued
     from d`,
    [deliveryId, endpointId, accountId],
  );
  if (!rows[0]) throw notFound('Delivery');
  return { delivery_id: rows[0].id };
}
