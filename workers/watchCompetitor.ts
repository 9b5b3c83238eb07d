// One competitor profile's watch (core/competitors/watch.ts); a platform's Retry-After is
// honoured by queueing the profile again after it.
import type { Task } from 'graphile-worker';
import { watchAgainAfter, watchCompetitor } from '../core/competitors/service.ts';
import type { ReadingDeps } from '../core/connections/service.ts';
import { WatchCompetitorPayload } from '../core/jobs/tasks.ts';

export const watchCompetitorTask =
  (deps: ReadingDeps): Task =>
  async (payload, helpers) => {
    const job = WatchCompetitorPayload.parse(payload);
    const done = await watchCompetitor(deps, job.competitor_id);
    if (done.outcome === 'throttled')
      await watchAgainAfter(deps.pool, job.competitor_id, done.retryAfterMs);
    helpers.logger.info(`competitor ${job.competitor_id}: ${JSON.stringify(done)}`);
  };
