// Hourly cron: drops expired dashboard sessions and forgotten login failures.
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { forgetOldLoginFailures } from '../core/sessions/loginThrottle.ts';
import { deleteExpiredSessions } from '../core/sessions/service.ts';

export const cleanupSessions =
  (pool: Pool): Task =>
  async (_payload, helpers) => {
    const removed = await deleteExpiredSessions(pool);
    await forgetOldLoginFailures(pool);
    if (removed) helpers.logger.info(`removed ${removed} expired sessions`);
  };
