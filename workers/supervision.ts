// Keeps the worker's Graphile Worker runners working through a database outage, in the same
// process. A runner stops by itself when it cannot record a job's outcome (its pool's fatal
// error), and the heartbeat notices an outage within a beat. A blip the runners lived through
// (the database answers again at once, no runner ended) changes nothing; otherwise every
// runner is stopped, so nothing polls a database that is not there, and the database is tried
// again after growing waits, each said in the log. Once it answers, fresh runners start.
//
// A stopped runner cannot stop a task already running (Graphile Worker 0.18 waits for it, or,
// once its pool has stopped itself, does not wait at all), so the jobs a stopped runner locked
// are released (to run again, as after a killed worker) only once none of its tasks runs: until
// then its ids keep beating, so no sweep releases them either, and the same job never runs
// twice at once in this process. Every wait is bounded: a probe of the database by its own
// timeout, and a stop by how long it gives a recovery under way.
import type { Runner } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { PROBE_TIMEOUT_MS, probeDatabase } from '../core/db/probe.ts';
import { isDatabaseUnreachable } from '../core/db/unreachable.ts';
import { heartbeat, releaseWorkers } from '../core/jobs/service.ts';
import type { Logger } from '../core/logger.ts';
import type { InFlight } from './inFlight.ts';

/** The first wait before trying the database again, doubled after each failure up to the last. */
export const RECONNECT_BACKOFF = { firstMs: 500, maxMs: 15_000 };
/**
 * How long a stopped runner whose tasks have all ended is given to finish stopping (its last
 * outcomes written) before its jobs are released anyway.
 */
const FLUSH_MS = 10_000;

/** A runner and the ids it locks jobs under (its pool's and its workers'), learnt as it started. */
export type StartedRunner = { runner: Runner; ids: ReadonlySet<string> };

export type Supervisor = {
  /** Stops the runners until the database answers again; nothing when already doing so. */
  outage: (reason: string, err?: unknown) => void;
  /** Whether the runners are stopped for an outage. */
  paused: () => boolean;
  /** The ids to heartbeat: the runners' and those of stopped runners whose jobs still run. */
  liveIds: () => string[];
  /** Releases the jobs of stopped runners none of whose tasks runs any more (each heartbeat). */
  releaseStopped: () => Promise<void>;
  stop: (reason?: string) => Promise<void>;
};

/**
 * Waits for `work` at most `ms`: a statement on a database host that stopped answering never
 * settles by itself (no refusal, no reset), and a stop must not wait on it.
 */
export async function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

const describe = (err: unknown) =>
  err instanceof Error ? ((err as { code?: string }).code ?? err.message) : undefined;

/** A runner stopped for an outage, whose jobs are not released yet. */
type Stopped = {
  ids: string[];
  /** Settles once the runner has stopped (its pool's last outcomes written or given up). */
  finished: Promise<void>;
  done: boolean;
  /** When it was first seen with no task running. */
  idleSince?: number;
};

export function superviseRunners(opts: {
  pool: Pool;
  log: Logger;
  runners: StartedRunner[];
  /** Starts every runner again, handing each to `started` as it starts. */
  start: (started: (runner: StartedRunner) => void) => Promise<void>;
  /** The tasks running in this process, and the ids their jobs are locked under. */
  jobs: InFlight;
  backoff?: { firstMs: number; maxMs: number };
  probeTimeoutMs?: number;
}): Supervisor {
  const { pool, log, jobs } = opts;
  const backoff = opts.backoff ?? RECONNECT_BACKOFF;
  const probeTimeoutMs = opts.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
  let runners: StartedRunner[] = [];
  let stopped: Stopped[] = [];
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
  const adopt = (started: StartedRunner) => {
    const { runner } = started;
    const end = () => {
      ended.add(runner);
      if (state === 'running' && runners.includes(started))
        outage('a worker pool stopped by itself');
    };
    runner.promise.then(end, end);
    runners.push(started);
    // Started while the process is stopping (a recovery overtaken by stop): stop it too.
    if (state === 'stopping') retire('the worker is stopping');
  };

  /**
   * Stops every runner without waiting on it; its jobs are released once its tasks end (then,
   * or at the next heartbeat should the database not answer then).
   */
  function retire(reason: string) {
    for (const { runner, ids } of runners) {
      const entry: Stopped = { ids: [...ids], finished: Promise.resolve(), done: false };
      const finish = () => {
        entry.done = true;
      };
      entry.finished = runner.promise.then(finish, finish);
      runner.stop(reason).catch(() => undefined);
      stopped.push(entry);
      jobs
        .idle(entry.ids)
        .then(() => bounded(entry.finished, FLUSH_MS))
        .then(() => (state === 'running' ? releaseStopped() : undefined))
        .catch(() => undefined);
    }
    runners = [];
  }

  const stoppedIds = () => stopped.flatMap((s) => s.ids);

  async function releaseStopped(all = false) {
    const now = Date.now();
    const ready = stopped.filter((s) => {
      if (jobs.busy(s.ids)) {
        s.idleSince = undefined;
        return false;
      }
      s.idleSince ??= now;
      return all || s.done || now - s.idleSince >= FLUSH_MS;
    });
    if (!ready.length) return;
    await releaseWorkers(
      pool,
      ready.flatMap((s) => s.ids),
    );
    stopped = stopped.filter((s) => !ready.includes(s));
  }

  async function recover(reason: string, err: unknown) {
    const since = Date.now();
    log.warn({ reason, db_error: describe(err) }, err ? 'database unreachable' : reason);
    if (!runners.some((r) => ended.has(r.runner))) {
      try {
        await probeDatabase(pool, probeTimeoutMs);
        if (state === 'paused') state = 'running';
        log.info('database reachable again: workers carried on');
        return;
      } catch {
        // Still unreachable: stop the runners below.
      }
    }
    log.warn('workers paused: they take no jobs until the database answers again');
    retire('database unreachable');
    for (let wait = backoff.firstMs; state === 'paused'; wait = Math.min(wait * 2, backoff.maxMs)) {
      try {
        await probeDatabase(pool, probeTimeoutMs);
        // The locks of jobs still running outlive the outage: beat them before a sweep
        // (this process's or another's) takes them for a dead worker's.
        await heartbeat(pool, stoppedIds());
        await releaseStopped();
        await opts.start(adopt);
        if (state === 'paused') state = 'running';
        const still = stopped.length ? { still_running: jobs.labels() } : {};
        log.info(
          { paused_ms: Date.now() - since, ...still },
          'database reachable again: workers resumed',
        );
        return;
      } catch (failure) {
        retire('database unreachable');
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

  for (const runner of opts.runners) adopt(runner);
  return {
    outage,
    paused: () => state === 'paused',
    liveIds: () => [...runners.flatMap((r) => [...r.ids]), ...stoppedIds()],
    releaseStopped: () => releaseStopped(),
    stop: async (reason) => {
      state = 'stopping';
      wake?.();
      // A recovery waiting on a database that does not answer must not hold the stop: its
      // probe gives up within its timeout, and a runner it starts late is stopped at once.
      await bounded(recovery, probeTimeoutMs);
      const current = runners;
      runners = [];
      await Promise.all(current.map((r) => r.runner.stop(reason)));
      // Tasks of runners stopped for an outage end as those of the runners stopped now do;
      // then their jobs are released (best effort, bounded: the database may be gone).
      if (stopped.length) {
        await jobs.idle(stoppedIds());
        await bounded(Promise.all(stopped.map((s) => s.finished)), FLUSH_MS);
        await bounded(releaseStopped(true), probeTimeoutMs);
      }
    },
  };
}
