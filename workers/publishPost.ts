// publish_post: publishes one scheduled post at its time (core/posts/publication.ts).
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import {
  type PublicationDeps,
  PublishJob,
  publishScheduledPost,
} from '../core/posts/publication.ts';

export const publishPost =
  (deps: { pool: Pool } & PublicationDeps): Task =>
  async (payload, helpers) => {
    const job = PublishJob.parse(payload);
    const result = await publishScheduledPost(deps.pool, deps, job, {
      number: helpers.job.attempts,
      max: helpers.job.max_attempts,
      signal: helpers.abortSignal,
      jobId: helpers.job.id,
    });
    helpers.logger.info(`post ${job.post_id}: ${result}`);
  };
