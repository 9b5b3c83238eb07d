// Hourly cron: drops expired dashboard sessions, forgotten login attempts, and OAuth codes,
// tokens and interactions past their expiry (the provider never deletes what ran out).
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { CronPayload } from '../core/jobs/tasks.ts';
import { deleteExpiredOAuthState } from '../core/oauth/service.ts';
import { deleteExpiredSessions, forgetOldLoginAttempts } from '../core/sessions/service.ts';

export const cleanupSessions =
  (pool: Pool): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const removed = await deleteExpiredSessions(pool);
    await forgetOldLoginAttempts(pool);
    await deleteExpiredOAuthState(pool);
    if (removed) helpers.logger.info(`removed ${removed} expired sessions`);
  };
