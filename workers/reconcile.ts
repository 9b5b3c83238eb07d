// Every minute: work a killed worker left half done, with no attempt to come, is ended with
// a reason (today: posts left `publishing`), so nothing waits forever.
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { CronPayload } from '../core/jobs/tasks.ts';
import { failAbandonedPublications } from '../core/posts/publication.ts';

export const reconcile =
  (pool: Pool): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const failed = await failAbandonedPublications(pool);
    if (failed) helpers.logger.warn(`failed ${failed} abandoned publications`);
  };
