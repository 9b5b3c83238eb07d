// One connected account's new mentions and replies (core/engagement/collect.ts); a platform's
// Retry-After is honoured by queueing the account again after it.
import type { Task } from 'graphile-worker';
import type { ReadingDeps } from '../core/connections/service.ts';
import { collectAccountInbound } from '../core/engagement/service.ts';
import { ConnectedAccountPayload, enqueueAccountInbound } from '../core/jobs/tasks.ts';

export const collectAccountInboundTask =
  (deps: ReadingDeps): Task =>
  async (payload, helpers) => {
    const job = ConnectedAccountPayload.parse(payload);
    const done = await collectAccountInbound(deps, job.connected_account_id);
    if (done.outcome === 'throttled')
      await enqueueAccountInbound(deps.pool, job, done.retryAfterMs);
    helpers.logger.info(`mentions of ${job.connected_account_id}: ${JSON.stringify(done)}`);
  };
