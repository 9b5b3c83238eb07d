// Delivering one webhook attempt, the short way: load, sign, send, record, schedule the next
// attempt. Attempts: the first at once, then 2 s and 8 s after the previous failure, at most
// three. Network errors, timeouts, 5xx and 429 are retried; any other status is final, and a
// redirect is a failure (never followed).
import { z } from 'zod';
import type { Pool } from '../db/pool.ts';
import { isId } from '../ids.ts';
import {
  type OutboundPolicy,
  OutboundRefused,
  resolveChecked,
  sendChecked,
} from '../outbound/guard.ts';
import { SIGNATURE_HEADER, signBody } from './signature.ts';

export const DeliveryJob = z.object({
  delivery_id: z.string().refine(isId),
  attempt: z.number().int().min(1),
});
export type DeliveryJob = z.infer<typeof DeliveryJob>;

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

export type DeliveryResult = 'delivered' | 'retrying' | 'failed' | 'skipped';

export async function deliverWebhook(
  pool: Pool,
  policy: OutboundPolicy,
  job: DeliveryJob,
): Promise<DeliveryResult> {
  const { rows } = await pool.query<{
    status: string;
    attempts: number;
    url: string;
    secret: string;
    body: string;
  }>(
    `select d.status, d.attempts, w.url, w.secret, e.body
     from webhook_deliveries d
     join webhook_endpoints w on w.id = d.endpoint_id
     join events e on e.id = d.event_id
     where d.id = $1`,
    [job.delivery_id],
  );
  const delivery = rows[0];
  // Gone with its endpoint, already settled, or a stale job for an earlier attempt.
  if (delivery?.status !== 'pending' || delivery.attempts !== job.attempt - 1) return 'skipped';

  const started = new Date();
  const outcome = await attempt(delivery.url, delivery.secret, delivery.body, policy);
  const durationMs = Date.now() - started.getTime();
  const retry = !outcome.ok && outcome.retryable && job.attempt < MAX_DELIVERY_ATTEMPTS;
  const status = outcome.ok ? 'delivered' : retry ? 'pending' : 'failed';

  // The attempt row, the delivery's state and the next attempt's job, in one statement.
  await pool.query(
    `with a as (
       insert into webhook_attempts (delivery_id, attempt, attempted_at, duration_ms, status_code, error)
       values ($1, $2, $3, $4, $5, $6)
     ), d as (
       update webhook_deliveries set attempts = $2, status = $7 where id = $1
     )
     select case when $8::int is not null then graphile_worker.add_job('deliver_webhook',
              json_build_object('delivery_id', $1::text, 'attempt', $2::int + 1),
              run_at := now() + $8::int * interval '1 millisecond',
              job_key := 'deliver_webhook:' || $1, max_attempts := 1) end`,
    [
      job.delivery_id,
      job.attempt,
      started,
      durationMs,
      outcome.statusCode,
      outcome.error,
      status,
      retry ? RETRY_DELAYS_MS[job.attempt - 1] : null,
    ],
  );
  return outcome.ok ? 'delivered' : retry ? 'retrying' : 'failed';
}
