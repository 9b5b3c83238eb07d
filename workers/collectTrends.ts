// Hourly: one trends collection job per active connected account (core/trends/service.ts).
import type { Task } from 'graphile-worker';
import type { Connectors } from '../core/connectors/schema.ts';
import type { Pool } from '../core/db/pool.ts';
import { CronPayload } from '../core/jobs/tasks.ts';
import { startTrendCollections } from '../core/trends/service.ts';

export const collectTrends =
  ({ pool, connectors }: { pool: Pool; connectors: Connectors }): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const accounts = await startTrendCollections(pool, connectors);
    if (accounts) helpers.logger.info(`collecting trends of ${accounts} accounts`);
  };
