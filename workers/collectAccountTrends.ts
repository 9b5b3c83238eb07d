// One connected account's trends (core/trends/service.ts); a platform's Retry-After is
// honoured by queueing the account again after it.
import type { Task } from 'graphile-worker';
import { ConnectedAccountPayload, enqueueAccountTrends } from '../core/jobs/tasks.ts';
import { collectAccountTrends, type TrendDeps } from '../core/trends/service.ts';

export const collectAccountTrendsTask =
  (deps: TrendDeps): Task =>
  async (payload, helpers) => {
    const job = ConnectedAccountPayload.parse(payload);
    const done = await collectAccountTrends(deps, job.connected_account_id);
    if ('retryAfterMs' in done) await enqueueAccountTrends(deps.pool, job, done.retryAfterMs);
    helpers.logger.info(`trends of ${job.connected_account_id}: ${JSON.stringify(done)}`);
  };
