// Collecting the engagement of our published posts: a cron every 15
// minutes fans out one job per connected account with a post published in the last 30 days
// (keyed by the account, so two workers never collect one account at once and a slow
// platform delays only itself); each job reads the counts of its account's posts that are
// due (every 15 minutes in their first two days, then every 6 hours) through the platform's
// connector and keeps them as a time series. A platform whose connector cannot read counts
// is skipped, not failed.

import {
  activeAccount,
  type Reading,
  type ReadingDeps,
  readThrough,
} from '../connections/service.ts';
import { type Connectors, platformsWith } from '../connectors/schema.ts';
import type { Pool } from '../db/pool.ts';
import { enqueueAccountMetrics } from '../jobs/tasks.ts';
import { accountsWithRecentPosts, insertMetrics, postsDue } from './db.ts';

/** What one account's collection did: the posts asked and those the platform counted. */
export type Collected = Reading<{ posts: number; counted: number }>;

/** Collects the due posts of one connected account (`budgetMs`: RUN_BUDGET_MS). */
export async function collectAccountMetrics(
  deps: ReadingDeps,
  connectedAccountId: string,
  budgetMs = RUN_BUDGET_MS,
): Promise<Collected> {
  const account = await activeAccount(deps.pool, connectedAccountId);
  if (!account) return { outcome: 'skipped', reason: 'the account is gone or needs reconnecting' };
  return readThrough(
    deps,
    account,
    'postMetrics',
    'Collecting metrics',
    async (connector, access) => {
      const due = await postsDue(deps.pool, account.id);
      const until = Date.now() + budgetMs;
      let asked = 0;
      let counted = 0;
      // A chunk at a time, each kept as it comes: a platform that throttles half-way (or is so
      // slow the run's budget runs out) loses nothing read before, and the posts not asked are
      // the longest unasked at the next run.
      while (asked < due.length && (asked === 0 || Date.now() < until)) {
        const chunk = due.slice(asked, asked + CHUNK);
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
        asked += chunk.length;
        counted += rows.length;
      }
      return { posts: asked, counted };
    },
  );
}

/** Posts asked of the platform at once, and kept before the next are asked. */
const CHUNK = 20;
/**
 * A run asks no further chunk after this long, so a slow platform holds a reading slot for
 * about this long rather than for 100 posts' timeouts; the rest is asked at the next run.
 */
export const RUN_BUDGET_MS = 120_000;

/** The cron's part: one collection job per connected account with recent posts to read. */
export async function startCollections(pool: Pool, connectors: Connectors): Promise<number> {
  const accounts = await accountsWithRecentPosts(pool, platformsWith(connectors, 'postMetrics'));
  for (const id of accounts) await enqueueAccountMetrics(pool, { connected_account_id: id });
  return accounts.length;
}
