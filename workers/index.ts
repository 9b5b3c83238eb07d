// The worker role: a Graphile Worker runner on the shared pool, with one task per file.
import { type Runner, run, type TaskList, Logger as WorkerLogger } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import type { Logger } from '../core/logger.ts';
import { cleanupSessions } from './cleanupSessions.ts';

export type WorkerDeps = { pool: Pool; concurrency: number; log: Logger };

export function taskList(deps: { pool: Pool }): TaskList {
  return {
    cleanup_sessions: cleanupSessions(deps.pool),
  };
}

const CRONTAB = ['0 * * * * cleanup_sessions'].join('\n');

/** Bridges Graphile Worker's logger to our JSON logger. */
function workerLogger(log: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const method = level === 'warning' ? 'warn' : level === 'debug' ? 'debug' : level;
    log[method]({ worker: scope, ...meta }, message);
  });
}

export async function startWorker(deps: WorkerDeps): Promise<Runner> {
  return run({
    pgPool: deps.pool,
    concurrency: deps.concurrency,
    noHandleSignals: true,
    taskList: taskList(deps),
    crontab: CRONTAB,
    logger: workerLogger(deps.log),
  });
}
