// Delivering one webhook attempt, the short way: load, sign, send, record, schedule the next
// attempt. Attempts: the first at once, then 2 s and 8 s after the previous failure, at most
// three. Network errors, timeouts, 5xx and 429 are retried; any other status is final, and a
// redirect is a failure (never followed). An attempt counts once its outcome is recorded: a run
// cut short before then (a killed worker, a lost database) is the same attempt run again.
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { type DeliverWebhookPayload, deliveryJobKey, enqueueDeliveries } from '../jobs/tasks.ts';
import {
  type OutboundPolicy,
  OutboundRefused,
  resolveChecked,
  sendChecked,
} from '../outbound/guard.ts';
import {
  findDeliveryToSend,
  insertEventDeliveries,
  recordAttempt,
  strandedDeliveries,
} from './db.ts';
import { SIGNATURE_HEADER, signBody } from './signature.ts';

export const MAX_DELIVERY_ATTEMPTS = 3;
/** Wait before attempt 2 and attempt 3, after the previous attempt failed. */
export const RETRY_DELAYS_MS = [2_000, 8_000];
export const ATTEMPT_TIMEOUT_MS = 5_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

type Attempt = { statusCode: number | null; error: string | null; retryable: boolean; ok: boolean };

const isRetryableStatus = (s: number) => s >= 500 || s === 429;

async function attempt(
  url: string,
  secret: string,
  body: string,
  policy: OutboundPolicy,
): Promise<Attempt> {
  try {
    const target = await resolveChecked(url, policy);
    const res = await sendChecked(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'social-publishing-service-webhooks/1',
        [SIGNATURE_HEADER]: signBody(secret, body),
      },
      body,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    const ok = res.status >= 200 && res.status < 300;
    return { statusCode: res.status, error: null, ok, retryable: isRetryableStatus(res.status) };
  } catch (err) {
    const refused = err instanceof OutboundRefused;
    const message = err instanceof Error ? err.message : String(err);
    return {
      statusCode: null,
      error: refused ? `refused: ${message}` : message,
      ok: false,
      retryable: !refused,
    };
  }
}

/**
 * Fans events out to every endpoint of their account subscribed to their type: one delivery
 * each, its first attempt queued at once. Call it in the transaction that writes the events,
 * so an event and its deliveries commit together.
 */
export async function queueEventDeliveries(
  tx: Queryable,
  events: readonly { id: string; account_id: string; type: string }[],
): Promise<number> {
  const ids = await insertEventDeliveries(tx, events);
  await enqueueDeliveries(tx, ids);
  return ids.length;
}

export type DeliveryResult = 'delivered' | 'retrying' | 'failed' | 'skipped';

export async function deliverWebhook(
  pool: Pool,
  policy: OutboundPolicy,
  job: DeliverWebhookPayload,
): Promise<DeliveryResult> {
  const delivery = await findDeliveryToSend(pool, job.delivery_id);
  // Gone with its endpoint, already settled, or a stale job for an earlier attempt.
  if (delivery?.status !== 'pending' || delivery.attempts !== job.attempt - 1) return 'skipped';

  const started = new Date();
  const outcome = await attempt(delivery.url, delivery.secret, delivery.body, policy);
  const durationMs = Date.now() - started.getTime();
  const retry = !outcome.ok && outcome.retryable && job.attempt < MAX_DELIVERY_ATTEMPTS;
  const status = outcome.ok ? 'delivered' : retry ? 'pending' : 'failed';

  const record = {
    deliveryId: job.delivery_id,
    attempt: job.attempt,
    attemptedAt: started,
    durationMs,
    statusCode: outcome.statusCode,
    error: outcome.error,
    deliveryStatus: status,
  } as const;
  // The attempt row, the delivery's state and the next attempt's job commit together; a
  // settled delivery has no next job, and its one statement needs no transaction.
  if (!retry) await recordAttempt(pool, record);
  else
    await withTransaction(pool, async (tx) => {
      await recordAttempt(tx, record);
      await enqueueDeliveries(tx, [job.delivery_id], {
        attempt: job.attempt + 1,
        delayMs: RETRY_DELAYS_MS[job.attempt - 1],
      });
    });
  return outcome.ok ? 'delivered' : retry ? 'retrying' : 'failed';
}

/**
 * Queues again, for its next attempt, each pending delivery that no job will ever run (its job
 * out of runs, or gone): the reconciler's cron, so an event is never left undelivered and
 * unsettled. Answers how many.
 */
export async function requeueStrandedDeliveries(pool: Pool): Promise<number> {
  const stranded = await strandedDeliveries(pool, deliveryJobKey(''));
  const byAttempt = Map.groupBy(stranded, (d) => d.attempts + 1);
  for (const [attempt, deliveries] of byAttempt)
    await enqueueDeliveries(
      pool,
      deliveries.map((d) => d.id),
      { attempt },
    );
  return stranded.length;
}
