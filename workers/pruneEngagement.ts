// Daily cron: mentions, inbox actions (core/engagement/prune.ts) and agent tasks past keeping.
import type { Task } from 'graphile-worker';
import { pruneAgentTasks } from '../core/agentTasks/service.ts';
import type { Pool } from '../core/db/pool.ts';
import { pruneEngagement } from '../core/engagement/service.ts';
import { CronPayload } from '../core/jobs/tasks.ts';

export const pruneEngagementTask =
  (pool: Pool): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const { items } = await pruneEngagement(pool);
    const tasks = await pruneAgentTasks(pool);
    if (items || tasks) helpers.logger.info(`pruned ${items} mentions and ${tasks} agent tasks`);
  };
