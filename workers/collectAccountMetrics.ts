// One connected account's metrics collection (core/metrics/collect.ts); a platform's
// Retry-After is honoured by queueing the account again after it.
import type { Task } from 'graphile-worker';
import { ConnectedAccountPayload, enqueueAccountMetrics } from '../core/jobs/tasks.ts';
import { type CollectDeps, collectAccountMetrics } from '../core/metrics/collect.ts';

export const collectAccountMetricsTask =
  (deps: CollectDeps): Task =>
  async (payload, helpers) => {
    const job = ConnectedAccountPayload.parse(payload);
    const done = await collectAccountMetrics(deps, job.connected_account_id);
    if (done.outcome === 'throttled') {
      // A new job under the same key, due after the wait; this one completes.
      await enqueueAccountMetrics(deps.pool, job, done.retryAfterMs);
      helpers.logger.info(`metrics of ${job.connected_account_id}: throttled`);
    } else helpers.logger.info(`metrics of ${job.connected_account_id}: ${JSON.stringify(done)}`);
  };
