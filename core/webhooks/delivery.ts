// Delivering one webhook attempt, the short way: load, sign, send, record, schedule the next
// attempt. Attempts: the first at once, then 2 s and 8 s after the previous failure, at most
// three. Network errors, timeouts, 5xx and 429 are retried; any other status is final, and a
// redirect is a failure (never followed). An attempt counts once its outcome is recorded: a run
// cut short before then (a killed worker, a lost database) is the same attempt run again. Every
// run that gets as far as sending is counted on the delivery; past MAX_DELIVERY_RUNS the
// delivery fails with the reason in its log instead of reaching the receiver once more.
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import {
  type DeliverWebhookPayload,
  deliveryJobKey,
  enqueueDeliveries,
  removeDeliveryJob,
} from '../jobs/tasks.ts';
import {
  type OutboundPolicy,
  OutboundRefused,
  resolveChecked,
  sendChecked,
} from '../outbound/guard.ts';
import {
  claimDeliveryRun,
  giveUpDelivery,
  insertEventDeliveries,
  recordAttempt,
  type StrandedDelivery,
  strandedDeliveries,
} from './db.ts';
import { SIGNATURE_HEADER, signBody } from './signature.ts';

export const MAX_DELIVERY_ATTEMPTS = 3;
/** Wait before attempt 2 and attempt 3, after the previous attempt failed. */
export const RETRY_DELAYS_MS = [2_000, 8_000];
export const ATTEMPT_TIMEOUT_MS = 5_000;
/**
 * The most times one delivery is sent: its three attempts and runs cut short before their
 * outcome was recorded (a killed worker, a lost database, a run that throws after sending).
 * A run past it fails the delivery instead, so a run that fails every time reaches the
 * receiver a bounded number of times, not again each minute for ever.
 */
export const MAX_DELIVERY_RUNS = 10;
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
  // Gone with its endpoint, already settled, or a stale job for an earlier attempt.
  const run = await claimDeliveryRun(pool, job.delivery_id, job.attempt);
  if (!run) return 'skipped';
  if (run.run > MAX_DELIVERY_RUNS) {
    const reason = tooManyRuns(run.run - 1, run.attempts);
    await giveUpDelivery(pool, { deliveryId: job.delivery_id, attempt: job.attempt, reason });
    return 'failed';
  }

  // The attempt's start is the claim's, by the database's clock: the clock its retries are
  // scheduled by. Its duration is this process's measure.
  const started = performance.now();
  const outcome = await attempt(run.url, run.secret, run.body, policy);
  const durationMs = Math.round(performance.now() - started);
  const retry = !outcome.ok && outcome.retryable && job.attempt < MAX_DELIVERY_ATTEMPTS;
  const status = outcome.ok ? 'delivered' : retry ? 'pending' : 'failed';

  const record = {
    deliveryId: job.delivery_id,
    attempt: job.attempt,
    attemptedAt: run.claimed_at,
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

/** What the delivery log says of a delivery failed for running out of sends. */
const tooManyRuns = (sent: number, recorded: number) =>
  `not sent again: sent ${sent} times, ${sent - recorded} of them cut short before the outcome ` +
  `was recorded (a worker stopped or failing mid-delivery); a delivery is sent at most ` +
  `${MAX_DELIVERY_RUNS} times`;

/** What the delivery log says of a delivery whose job ran out of runs. */
const jobOutOfRuns = (runs: number) =>
  `not sent again: its attempt's job ran ${runs} times and no run recorded an outcome ` +
  '(a worker stopped or failing mid-delivery)';

export type StrandedOutcome = {
  /** Deliveries queued again for their next attempt. */
  requeued: number;
  /** Deliveries failed instead, with their job's last error for the operator's log. */
  failed: { id: string; job_error: string | null }[];
};

/**
 * The reconciler's cron, for each pending delivery that no job will ever run: one whose job is
 * gone and that is under MAX_DELIVERY_RUNS is queued again for its next attempt (an event is
 * not left undelivered and unsettled); one whose job is out of runs, or that has been sent as
 * often as it may be, is failed with the reason in its log and its job removed. A job out of
 * runs is never added again: that would reset Graphile Worker's count of its runs.
 */
export async function reconcileStrandedDeliveries(pool: Pool): Promise<StrandedOutcome> {
  const stranded = await strandedDeliveries(pool, deliveryJobKey(''));
  const requeue = stranded.filter((d) => d.job_runs === null && d.runs < MAX_DELIVERY_RUNS);
  const giveUp = stranded.filter((d) => !requeue.includes(d));
  const byAttempt = Map.groupBy(requeue, (d) => d.attempts + 1);
  for (const [attempt, deliveries] of byAttempt)
    await enqueueDeliveries(
      pool,
      deliveries.map((d) => d.id),
      { attempt },
    );
  const failed: StrandedOutcome['failed'] = [];
  for (const d of giveUp)
    if (await failStranded(pool, d)) failed.push({ id: d.id, job_error: d.job_error });
  return { requeued: requeue.length, failed };
}

function failStranded(pool: Pool, d: StrandedDelivery): Promise<boolean> {
  const reason = d.job_runs === null ? tooManyRuns(d.runs, d.attempts) : jobOutOfRuns(d.job_runs);
  return withTransaction(pool, async (tx) => {
    const failed = await giveUpDelivery(tx, { deliveryId: d.id, attempt: d.attempts + 1, reason });
    if (failed) await removeDeliveryJob(tx, d.id);
    return failed;
  });
}
