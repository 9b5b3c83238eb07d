// Trends (issue 20): collected hourly through each connected account's platform (a cron
// fanning out one keyed job per account, like metrics), answered by list_trends from the
// latest collection. Topic text is a third party's: answered under `untrusted`.
import { requireBrandFor } from '../brands/service.ts';
import { type CredentialsKey, openedAccess } from '../connections/credentials.ts';
import { activeAccounts, saveSealedCredentials, sealedAccount } from '../connections/db.ts';
import { noteReadRefusal } from '../connections/service.ts';
import { type Connectors, PublicationError, platformsWith } from '../connectors/connector.ts';
import type { Pool } from '../db/pool.ts';
import { enqueueAccountTrends } from '../jobs/tasks.ts';
import type { Caller } from '../posts/service.ts';
import { latestTrends, recordTrends } from './db.ts';
import type { ListTrendsInput, Trends } from './schema.ts';

/** Topics kept a collection. */
export const TRENDS_PER_COLLECTION = 20;

export type TrendDeps = { pool: Pool; connectors: Connectors; credentialsKey?: CredentialsKey };

/** The cron's part: one trends job per active connected account whose platform has trends. */
export async function startTrendCollections(pool: Pool, connectors: Connectors): Promise<number> {
  const accounts = await activeAccounts(pool, platformsWith(connectors, 'trends'));
  for (const id of accounts) await enqueueAccountTrends(pool, { connected_account_id: id });
  return accounts.length;
}

/**
 * Collects one account's trends; a platform that has none to give is skipped. Answers the
 * topics kept, or the platform's Retry-After when it throttled.
 */
export async function collectAccountTrends(
  deps: TrendDeps,
  connectedAccountId: string,
): Promise<{ kept: number } | { skipped: string } | { retryAfterMs: number }> {
  const account = await sealedAccount(deps.pool, connectedAccountId);
  if (!account) return { skipped: 'the account is gone or needs reconnecting' };
  const connector = deps.connectors[account.platform];
  if (!connector?.trends) return { skipped: `${account.platform} trends are not read yet` };
  if (!account.credentials || !deps.credentialsKey) return { skipped: 'no credentials' };
  const key = deps.credentialsKey;
  try {
    const trends = await connector.trends(
      openedAccess(key, { ...account, credentials: account.credentials }, (sealed) =>
        saveSealedCredentials(deps.pool, account.id, sealed),
      ),
      TRENDS_PER_COLLECTION,
    );
    const kept = trends.slice(0, TRENDS_PER_COLLECTION);
    await recordTrends(deps.pool, account.id, kept);
    return { kept: kept.length };
  } catch (err) {
    if (!(err instanceof PublicationError)) throw err;
    if (err.retryAfterMs !== undefined) return { retryAfterMs: err.retryAfterMs };
    if (err.retryable) throw err;
    await noteReadRefusal(deps.pool, account.id, 'Reading trends', err);
    return { skipped: err.message };
  }
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
