// One connected account's metrics collection (core/metrics/collect.ts); a platform's
// Retry-After is honoured by queueing the account again after it.
import type { Task } from 'graphile-worker';
import type { ReadingDeps } from '../core/connections/service.ts';
import { ConnectedAccountPayload, enqueueAccountMetrics } from '../core/jobs/tasks.ts';
import { collectAccountMetrics } from '../core/metrics/service.ts';

export const collectAccountMetricsTask =
  (deps: ReadingDeps): Task =>
  async (payload, helpers) => {
    const job = ConnectedAccountPayload.parse(payload);
    const done = await collectAccountMetrics(deps, job.connected_account_id);
    // A new job under the same key, due after the wait; this one completes.
    if (done.outcome === 'throttled')
      await enqueueAccountMetrics(deps.pool, job, done.retryAfterMs);
    helpers.logger.info(`metrics of ${job.connected_account_id}: ${JSON.stringify(done)}`);
  };
