// Publishes one scheduled post at its time (core/posts/publication.ts).
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { PublishPostPayload } from '../core/jobs/tasks.ts';
import { type PublicationDeps, publishScheduledPost } from '../core/posts/service.ts';

export const publishPost =
  (deps: { pool: Pool } & PublicationDeps): Task =>
  async (payload, helpers) => {
    const job = PublishPostPayload.parse(payload);
    // Attempts count across the jobs of one publication (a Retry-After schedules a new one).
    const result = await publishScheduledPost(deps.pool, deps, job, {
      number: job.attempts_before + helpers.job.attempts,
      max: job.attempts_before + helpers.job.max_attempts,
      signal: helpers.abortSignal,
    });
    helpers.logger.info(`post ${job.post_id}: ${result}`);
  };
