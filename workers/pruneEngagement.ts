// Daily cron: mentions, inbox actions and agent tasks past keeping (core/engagement/prune.ts).
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { pruneEngagement } from '../core/engagement/prune.ts';
import { CronPayload } from '../core/jobs/tasks.ts';

export const pruneEngagementTask =
  (pool: Pool): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const pruned = await pruneEngagement(pool);
    if (pruned.items || pruned.tasks)
      helpers.logger.info(`pruned ${pruned.items} mentions and ${pruned.tasks} agent tasks`);
  };
