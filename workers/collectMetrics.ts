// Every 15 minutes: one metrics collection job per connected account with posts published in
// the last 30 days (core/metrics/collect.ts).
import type { Task } from 'graphile-worker';
import type { Connectors } from '../core/connectors/schema.ts';
import type { Pool } from '../core/db/pool.ts';
import { CronPayload } from '../core/jobs/tasks.ts';
import { startCollections } from '../core/metrics/service.ts';

export const collectMetrics =
  ({ pool, connectors }: { pool: Pool; connectors: Connectors }): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const accounts = await startCollections(pool, connectors);
    if (accounts) helpers.logger.info(`collecting metrics of ${accounts} accounts`);
  };
