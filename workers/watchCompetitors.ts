// Hourly: one watch job per tracked competitor profile (core/competitors/watch.ts).
import type { Task } from 'graphile-worker';
import { startWatches } from '../core/competitors/watch.ts';
import type { Pool } from '../core/db/pool.ts';
import { CronPayload } from '../core/jobs/tasks.ts';

export const watchCompetitors =
  (pool: Pool): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const profiles = await startWatches(pool);
    if (profiles) helpers.logger.info(`watching ${profiles} competitor profiles`);
  };
