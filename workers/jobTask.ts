// A worker task that runs one attempt of a job clients poll (core/jobs/): the payload checked,
// the attempt recorded by runJobAttempt, and an unexpected error on the last attempt logged
// here and told to the client in words it can act on.
import type { Task } from 'graphile-worker';
import type { z } from 'zod';
import type { Pool } from '../core/db/pool.ts';
import { type FinishInside, type ProgressReport, runJobAttempt } from '../core/jobs/service.ts';

export function jobTask<P extends { job_id: string }>(opts: {
  pool: Pool;
  payload: z.ZodType<P>;
  /** What the job does, for the log ("export", "preview"). */
  what: string;
  /** The client's error when the last attempt failed unexpectedly. */
  lastAttemptError: string;
  /** Work that stores something finishes the job inside its transaction with `finish`. */
  work: (job: P, report: ProgressReport, finish: FinishInside) => Promise<Record<string, unknown>>;
}): Task {
  return async (payload, helpers) => {
    const job = opts.payload.parse(payload);
    const outcome = await runJobAttempt(
      opts.pool,
      job.job_id,
      { number: helpers.job.attempts, max: helpers.job.max_attempts },
      (report, finish) => opts.work(job, report, finish),
      (err) => {
        helpers.logger.error(`${opts.what} ${job.job_id} failed: ${(err as Error).message}`);
        return opts.lastAttemptError;
      },
    );
    helpers.logger.info(`${opts.what} ${job.job_id}: ${outcome}`);
  };
}
