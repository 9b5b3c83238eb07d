// Webhook endpoints: created and removed from a dashboard session, at most five per account,
// each URL checked by the outbound guard at creation (and again at every delivery). And the
// events they receive, raised by the concepts where each happens.
import { randomBytes } from 'node:crypto';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { enqueueDeliveries } from '../jobs/tasks.ts';
import { conflict, invalid, notFound, planRequired } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import { API_PLAN, planAtLeast } from '../kernel/plans.ts';
import type { Principal } from '../kernel/principal.ts';
import { type OutboundPolicy, OutboundRefused, resolveChecked } from '../outbound/guard.ts';
import {
  deleteEndpointRow,
  type EndpointRow,
  endpointExists,
  insertEndpointWithin,
  insertEvents,
  insertReplay,
  listAttemptRows,
  listEndpointRows,
} from './db.ts';
import { queueEventDeliveries } from './delivery.ts';
import {
  type CreateWebhookInput,
  type DeliveryAttempt,
  MAX_ENDPOINTS,
  WEBHOOK_EVENTS,
  type WebhookCreated,
  type WebhookEndpoint,
  type WebhookEvent,
} from './schema.ts';

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
  if (!planAtLeast(principal.plan, API_PLAN)) throw planRequired(API_PLAN, 'Webhooks');
  try {
    await resolveChecked(input.url, policy);
  } catch (err) {
    if (err instanceof OutboundRefused) throw invalid(['body', 'url'], err.message);
    throw err;
  }
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  const events = input.events ?? [...WEBHOOK_EVENTS];
  const row = await withTransaction(pool, (tx) =>
    insertEndpointWithin(tx, MAX_ENDPOINTS, {
      accountId: principal.accountId,
      url: input.url,
      events,
      secret,
    }),
  );
  if (row === 'limit_reached')
    throw conflict(
      'webhook_limit',
      `An account has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`,
    );
  return { ...toEndpoint(row), secret };
}

export async function listEndpoints(pool: Pool, accountId: string): Promise<WebhookEndpoint[]> {
  return (await listEndpointRows(pool, accountId)).map(toEndpoint);
}

/** Deletes an endpoint; its pending deliveries go with it and are never sent. */
export async function deleteEndpoint(pool: Pool, accountId: string, id: string): Promise<void> {
  if (!isId(id) || !(await deleteEndpointRow(pool, accountId, id)))
    throw notFound('Webhook endpoint');
}

async function requireEndpoint(pool: Pool, accountId: string, id: string) {
  if (!isId(id) || !(await endpointExists(pool, accountId, id))) throw notFound('Webhook endpoint');
}

/** The endpoint's delivery log: one row an attempt, newest first. */
export async function listAttempts(
  pool: Pool,
  accountId: string,
  endpointId: string,
  limit = 100,
): Promise<DeliveryAttempt[]> {
  await requireEndpoint(pool, accountId, endpointId);
  const rows = await listAttemptRows(pool, endpointId, limit);
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
  const id = await withTransaction(pool, async (tx) => {
    const replay = await insertReplay(tx, { accountId, endpointId, deliveryId });
    if (replay) await enqueueDeliveries(tx, [replay]);
    return replay;
  });
  if (!id) throw notFound('Delivery');
  return { delivery_id: id };
}

/**
 * Records events and queues one delivery each to every endpoint of their account subscribed
 * to their type. Call it in the transaction that makes the change the events report, so the
 * change, its events and their deliveries commit together. Answers the deliveries queued.
 */
export async function raiseEvents(
  tx: Queryable,
  events: readonly { accountId: string; type: WebhookEvent; body: string; postId?: string }[],
): Promise<number> {
  return queueEventDeliveries(tx, await insertEvents(tx, events));
}

export { deliverWebhook, reconcileStrandedDeliveries } from './delivery.ts';
export { bodyPreview, postEventBody } from './events.ts';
