// Every 5 minutes: one mentions job per active connected account (core/engagement/collect.ts).
import type { Task } from 'graphile-worker';
import type { Connectors } from '../core/connectors/schema.ts';
import type { Pool } from '../core/db/pool.ts';
import { startInboundCollections } from '../core/engagement/service.ts';
import { CronPayload } from '../core/jobs/tasks.ts';

export const collectInbound =
  ({ pool, connectors }: { pool: Pool; connectors: Connectors }): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const accounts = await startInboundCollections(pool, connectors);
    if (accounts) helpers.logger.info(`reading the mentions of ${accounts} accounts`);
  };
