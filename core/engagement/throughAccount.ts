// A job's one write through an inbound post's connected account (a reply, a like, a follow):
// the account opened as a reading opens it; a throttle is thrown for the job's own backoff
// (the call's idempotency key keeps the retry one act) and a final refusal fails the job with
// its reason.

import { type ReadingDeps, readThrough } from '../connections/service.ts';
import type { ConnectedAccountAccess, Connector } from '../connectors/schema.ts';
import { JobFailure } from '../jobs/service.ts';
import type { suggestionToSend } from './db.ts';

type ItemToWrite = NonNullable<Awaited<ReturnType<typeof suggestionToSend>>>;

export async function writeThrough<K extends 'reply' | 'act', T extends object>(
  deps: ReadingDeps,
  item: ItemToWrite,
  method: K,
  doing: string,
  write: (connector: Required<Pick<Connector, K>>, access: ConnectedAccountAccess) => Promise<T>,
): Promise<T> {
  if (item.account_status !== 'active')
    throw new JobFailure(
      `The connected ${item.platform} account ${item.handle} needs reconnecting.`,
    );
  const done = await readThrough(
    deps,
    {
      id: item.connected_account_id,
      platform: item.platform,
      handle: item.handle,
      credentials: item.credentials,
    },
    method,
    doing,
    write,
  );
  if (done.outcome === 'throttled')
    throw new Error(`the platform asked to wait ${Math.ceil(done.retryAfterMs / 1000)} s`);
  if (done.outcome === 'skipped') throw new JobFailure(`${doing} failed: ${done.reason}`);
  return done;
}
