// Collecting the engagement of our published posts (issue 20, item 2): a cron every 15
// minutes fans out one job per connected account with a post published in the last 30 days
// (keyed by the account, so two workers never collect one account at once and a slow
// platform delays only itself); each job reads the counts of its account's posts that are
// due (every 15 minutes in their first two days, then every 6 hours) through the platform's
// connector and keeps them as a time series. A platform whose connector cannot read counts
// is skipped, not failed.
import { type CredentialsKey, openedAccess } from '../connections/credentials.ts';
import { saveSealedCredentials, sealedAccount } from '../connections/db.ts';
import { noteReadRefusal } from '../connections/service.ts';
import { type Connectors, PublicationError, platformsWith } from '../connectors/connector.ts';
import type { Pool } from '../db/pool.ts';
import { enqueueAccountMetrics } from '../jobs/tasks.ts';
import { accountsWithRecentPosts, insertMetrics, postsDue } from './db.ts';

export type CollectDeps = { pool: Pool; connectors: Connectors; credentialsKey?: CredentialsKey };

/** What one account's collection did, for the worker's log and the retry it may need. */
export type Collected =
  | { outcome: 'collected'; posts: number; counted: number }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'throttled'; retryAfterMs: number };

/** Collects the due posts of one connected account. */
export async function collectAccountMetrics(
  deps: CollectDeps,
  connectedAccountId: string,
): Promise<Collected> {
  const account = await sealedAccount(deps.pool, connectedAccountId);
  if (!account) return { outcome: 'skipped', reason: 'the account is gone or needs reconnecting' };
  const connector = deps.connectors[account.platform];
  if (!connector?.postMetrics)
    return { outcome: 'skipped', reason: `${account.platform} counts are not read yet` };
  if (!account.credentials || !deps.credentialsKey)
    return { outcome: 'skipped', reason: 'no credentials to read with' };
  const due = await postsDue(deps.pool, account.id);
  if (!due.length) return { outcome: 'collected', posts: 0, counted: 0 };
  const key = deps.credentialsKey;
  const access = openedAccess(key, { ...account, credentials: account.credentials }, (sealed) =>
    saveSealedCredentials(deps.pool, account.id, sealed),
  );
  let counted = 0;
  // A chunk at a time, each kept as it comes: a platform that throttles half-way loses nothing
  // read before, and the posts not read are the oldest-collected ones next time.
  for (let i = 0; i < due.length; i += CHUNK) {
    const chunk = due.slice(i, i + CHUNK);
    try {
      const counts = await connector.postMetrics(
        access,
        chunk.map((p) => p.external_post_id),
      );
      const rows = chunk.flatMap((p) => {
        const c = counts.get(p.external_post_id);
        return c ? [{ postId: p.id, counts: c }] : [];
      });
      await insertMetrics(
        deps.pool,
        rows,
        chunk.map((p) => p.id),
      );
      counted += rows.length;
    } catch (err) {
      if (!(err instanceof PublicationError)) throw err;
      if (err.retryAfterMs !== undefined)
        return { outcome: 'throttled', retryAfterMs: err.retryAfterMs };
      if (err.retryable) throw err;
      await noteReadRefusal(deps.pool, account.id, 'Collecting metrics', err);
      return { outcome: 'skipped', reason: err.message };
    }
  }
  return { outcome: 'collected', posts: due.length, counted };
}

/** Posts asked of the platform at once, and kept before the next are asked. */
const CHUNK = 20;

/** The cron's part: one collection job per connected account with recent posts to read. */
export async function startCollections(pool: Pool, connectors: Connectors): Promise<number> {
  const accounts = await accountsWithRecentPosts(pool, platformsWith(connectors, 'postMetrics'));
  for (const id of accounts) await enqueueAccountMetrics(pool, { connected_account_id: id });
  return accounts.length;
}
