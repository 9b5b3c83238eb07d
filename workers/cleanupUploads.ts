// Hourly cron: removes chunked upload sessions that expired unfinished, with their parts.
import type { Task } from 'graphile-worker';
import { cleanupExpiredUploads } from '../core/assets/chunked.ts';
import type { Pool } from '../core/db/pool.ts';
import type { Storage } from '../core/storage/storage.ts';

export const cleanupUploads =
  (deps: { pool: Pool; storage: Storage }): Task =>
  async (_payload, helpers) => {
    const removed = await cleanupExpiredUploads(deps);
    if (removed) helpers.logger.info(`removed ${removed} expired upload sessions`);
  };
