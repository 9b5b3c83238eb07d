// Hourly: one watch job per tracked competitor profile (core/competitors/watch.ts).
import type { Task } from 'graphile-worker';
import { startWatches } from '../core/competitors/service.ts';
import type { Connectors } from '../core/connectors/schema.ts';
import type { Pool } from '../core/db/pool.ts';
import { CronPayload } from '../core/jobs/tasks.ts';

export const watchCompetitors =
  ({ pool, connectors }: { pool: Pool; connectors: Connectors }): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const profiles = await startWatches(pool, connectors);
    if (profiles) helpers.logger.info(`watching ${profiles} competitor profiles`);
  };
