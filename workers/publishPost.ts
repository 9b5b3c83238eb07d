// publish_post: publishes one scheduled post at its time (core/posts/publication.ts).
import type { Task } from 'graphile-worker';
import type { Connectors } from '../core/connectors/connector.ts';
import type { Pool } from '../core/db/pool.ts';
import { PublishJob, publishScheduledPost } from '../core/posts/publication.ts';

export const publishPost =
  (deps: { pool: Pool; connectors: Connectors }): Task =>
  async (payload, helpers) => {
    const job = PublishJob.parse(payload);
    const result = await publishScheduledPost(deps.pool, deps.connectors, job, {
      number: helpers.job.attempts,
      max: helpers.job.max_attempts,
      signal: helpers.abortSignal,
    });
    helpers.logger.info(`post ${job.post_id}: ${result}`);
  };
