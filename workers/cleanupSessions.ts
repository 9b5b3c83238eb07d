// Hourly cron: drops expired dashboard sessions and forgotten login attempts.
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { CronPayload } from '../core/jobs/tasks.ts';
import { forgetOldLoginAttempts } from '../core/sessions/loginThrottle.ts';
import { deleteExpiredSessions } from '../core/sessions/service.ts';

export const cleanupSessions =
  (pool: Pool): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const removed = await deleteExpiredSessions(pool);
    await forgetOldLoginAttempts(pool);
    if (removed) helpers.logger.info(`removed ${removed} expired sessions`);
  };
