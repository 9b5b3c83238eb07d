// Keeps the worker's Graphile Worker runners working through a database outage, in the same
// process. A runner stops by itself when it cannot record a job's outcome (its pool's fatal
// error), and the heartbeat notices an outage within a beat. A blip the runners lived through
// (the database answers again at once, no runner ended) changes nothing; otherwise every
// runner is stopped, so nothing polls a database that is not there, and the database is tried
// again after growing waits, each said in the log. Once it answers, the jobs the stopped
// runners still held are released (they run again, as after a killed worker) and fresh
// runners start. The process never exits for an outage, and never spins.
import type { Runner } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { isDatabaseUnreachable } from '../core/db/unreachable.ts';
import { releaseWorkers } from '../core/jobs/liveness.ts';
import type { Logger } from '../core/logger.ts';

/** The first wait before trying the database again, doubled after each failure up to the last. */
export const RECONNECT_BACKOFF = { firstMs: 500, maxMs: 15_000 };

export type Supervisor = {
  /** Stops the runners until the database answers again; nothing when already doing so. */
  outage: (reason: string, err?: unknown) => void;
  /** Whether the runners are stopped for an outage. */
  paused: () => boolean;
  stop: (reason?: string) => Promise<void>;
};

const describe = (err: unknown) =>
  err instanceof Error ? ((err as { code?: string }).code ?? err.message) : undefined;

export function superviseRunners(opts: {
  pool: Pool;
  log: Logger;
  /** The runners, started; each has added the ids it locks jobs under to `ids`. */
  runners: Runner[];
  /** Starts every runner again (stopping those it started, should one fail). */
  start: () => Promise<Runner[]>;
  ids: Set<string>;
  backoff?: { firstMs: number; maxMs: number };
}): Supervisor {
  const { pool, log, ids } = opts;
  const backoff = opts.backoff ?? RECONNECT_BACKOFF;
  let runners = opts.runners;
  let state: 'running' | 'paused' | 'stopping' = 'running';
  let recovery: Promise<void> = Promise.resolve();
  let wake: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  // A runner that ends while it should be running has stopped by itself.
  const ended = new WeakSet<Runner>();
  const watch = (started: Runner[]) => {
    for (const runner of started) {
      const end = () => {
        ended.add(runner);
        if (state === 'running' && runners.includes(runner))
          outage('a worker pool stopped by itself');
      };
      runner.promise.then(end, end);
    }
  };

  async function recover(reason: string, err: unknown) {
    const since = Date.now();
    log.warn({ reason, db_error: describe(err) }, err ? 'database unreachable' : reason);
    if (!runners.some((r) => ended.has(r))) {
      try {
        await pool.query('select 1');
        if (state === 'paused') state = 'running';
        log.info('database reachable again: workers carried on');
        return;
      } catch {
        // Still unreachable: stop the runners below.
      }
    }
    log.warn('workers paused: they take no jobs until the database answers again');
    const stopped = runners;
    runners = [];
    const held = [...ids];
    ids.clear();
    await Promise.all(stopped.map((r) => r.stop('database unreachable').catch(() => undefined)));
    for (let wait = backoff.firstMs; state === 'paused'; wait = Math.min(wait * 2, backoff.maxMs)) {
      try {
        await pool.query('select 1');
        await releaseWorkers(pool, held);
        runners = await opts.start();
        watch(runners);
        if (state === 'paused') state = 'running';
        log.info({ paused_ms: Date.now() - since }, 'database reachable again: workers resumed');
        return;
      } catch (failure) {
        held.push(...ids);
        ids.clear();
        const fields = { db_error: describe(failure), retry_in_ms: wait };
        if (isDatabaseUnreachable(failure)) log.warn(fields, 'database still unreachable');
        else log.error({ ...fields, err: failure }, 'workers could not resume');
        await sleep(wait);
      }
    }
  }

  function outage(reason: string, err?: unknown) {
    if (state !== 'running') return;
    state = 'paused';
    recovery = recover(reason, err);
  }

  watch(runners);
  return {
    outage,
    paused: () => state === 'paused',
    stop: async (reason) => {
      state = 'stopping';
      wake?.();
      await recovery;
      await Promise.all(runners.map((r) => r.stop(reason)));
    },
  };
}
