// Trends: collected hourly through each connected account's platform (a cron
// fanning out one keyed job per account, like metrics), answered by list_trends from the
// latest collection. Topic text is a third party's: answered under `untrusted`.
import { requireBrandFor } from '../brands/service.ts';
import {
  activeAccount,
  activeAccountIdsOn,
  type Reading,
  type ReadingDeps,
  readThrough,
} from '../connections/service.ts';
import { type Connectors, platformsWith } from '../connectors/schema.ts';
import type { Pool } from '../db/pool.ts';
import { enqueueAccountTrends } from '../jobs/tasks.ts';
import type { Caller } from '../posts/service.ts';
import { latestTrends, recordTrends } from './db.ts';
import type { ListTrendsInput, Trends } from './schema.ts';

/** Topics kept a collection. */
export const TRENDS_PER_COLLECTION = 20;

/** The cron's part: one trends job per active connected account whose platform has trends. */
export async function startTrendCollections(pool: Pool, connectors: Connectors): Promise<number> {
  const accounts = await activeAccountIdsOn(pool, platformsWith(connectors, 'trends'));
  for (const id of accounts) await enqueueAccountTrends(pool, { connected_account_id: id });
  return accounts.length;
}

/** Collects one account's trends; answers how many topics were kept. */
export async function collectAccountTrends(
  deps: ReadingDeps,
  connectedAccountId: string,
): Promise<Reading<{ kept: number }>> {
  const account = await activeAccount(deps.pool, connectedAccountId);
  if (!account) return { outcome: 'skipped', reason: 'the account is gone or needs reconnecting' };
  return readThrough(deps, account, 'trends', 'Reading trends', async (connector, access) => {
    const kept = (await connector.trends(access, TRENDS_PER_COLLECTION)).slice(
      0,
      TRENDS_PER_COLLECTION,
    );
    await recordTrends(deps.pool, account.id, kept);
    return { kept: kept.length };
  });
}

/** list_trends: the latest topics collected on `platform` for the brand's account there. */
export async function listTrends(
  pool: Pool,
  caller: Caller,
  input: ListTrendsInput,
): Promise<Trends> {
  const brand = await requireBrandFor(pool, caller, input.brand_id);
  const rows = await latestTrends(pool, {
    accountId: caller.accountId,
    brandId: brand.id,
    platform: input.platform,
    limit: input.limit,
  });
  return {
    platform: input.platform,
    brand_id: brand.id,
    collected_at: rows[0]?.collected_at.toISOString() ?? null,
    trends: rows.map((r) => ({
      rank: r.rank,
      volume: r.volume,
      untrusted: { topic: r.topic, url: r.url },
    })),
  };
}
