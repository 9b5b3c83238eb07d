// Asking the database whether it answers, within a bound of our own: a host that silently
// stops answering (no refusal, no reset) would otherwise hold a connect or a query for as long
// as TCP keeps trying, and whoever waits on the answer (the worker's supervisor) with it.
import type { Pool, PoolClient } from 'pg';
import { markFromDatabase } from './unreachable.ts';

/** How long a probe waits for a connection and its `select 1`, together. */
export const PROBE_TIMEOUT_MS = 5_000;

/**
 * A probe that got no answer in time: ETIMEDOUT, marked as the database connection's error
 * (markFromDatabase), so it reads as the database unreachable.
 */
export class ProbeTimedOut extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
  }
}

/**
 * Resolves once the database answers `select 1`; rejects with the database's error, or with
 * ProbeTimedOut after `timeoutMs`. A connection that did not answer in time is destroyed, not
 * handed back to the pool for someone else to wait on, whenever it is had.
 */
export async function probeDatabase(pool: Pool, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(markFromDatabase(new ProbeTimedOut(timeoutMs))), timeoutMs);
  });
  const connecting = pool.connect();
  let client: PoolClient;
  try {
    client = await Promise.race([connecting, timedOut]);
  } catch (err) {
    clearTimeout(timer);
    connecting.then(
      (late) => late.release(true),
      () => undefined,
    );
    throw err;
  }
  try {
    await Promise.race([client.query('select 1'), timedOut]);
    client.release();
  } catch (err) {
    client.release(err instanceof Error ? err : true);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
