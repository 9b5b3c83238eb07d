// One connected account's trends (core/trends/service.ts); a platform's Retry-After is
// honoured by queueing the account again after it.
import type { Task } from 'graphile-worker';
import type { ReadingDeps } from '../core/connections/service.ts';
import { ConnectedAccountPayload, enqueueAccountTrends } from '../core/jobs/tasks.ts';
import { collectAccountTrends } from '../core/trends/service.ts';

export const collectAccountTrendsTask =
  (deps: ReadingDeps): Task =>
  async (payload, helpers) => {
    const job = ConnectedAccountPayload.parse(payload);
    const done = await collectAccountTrends(deps, job.connected_account_id);
    if (done.outcome === 'throttled') await enqueueAccountTrends(deps.pool, job, done.retryAfterMs);
    helpers.logger.info(`trends of ${job.connected_account_id}: ${JSON.stringify(done)}`);
  };
