// Hourly cron: closes chunked upload sessions that expired unfinished (their reservations given
// back) and removes every upload folder in storage that no open session names.
import type { Task } from 'graphile-worker';
import { cleanupExpiredUploads } from '../core/assets/service.ts';
import type { Pool } from '../core/db/pool.ts';
import { CronPayload } from '../core/jobs/tasks.ts';
import type { Storage } from '../core/storage/storage.ts';

export const cleanupUploads =
  (deps: { pool: Pool; storage: Storage }): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const removed = await cleanupExpiredUploads(deps);
    if (removed) helpers.logger.info(`removed ${removed} expired upload sessions`);
  };
