// SQL for trends (sql/027_trends.sql).

import type { Trend } from '../connectors/schema.ts';
import type { Queryable } from '../db/pool.ts';

/** Collections of trends kept, in days (list_trends answers the latest). */
export const TRENDS_KEPT_DAYS = 7;

/**
 * One collection of an account's trends, ranked in order, and collections past keeping gone.
 * A collection that found none clears the earlier ones: what is trending now is nothing, not
 * what trended last.
 */
export async function recordTrends(db: Queryable, connectedAccountId: string, trends: Trend[]) {
  await db.query(
    `delete from trends where connected_account_id = $1
       and ($3 or collected_at < now() - make_interval(days => $2))`,
    [connectedAccountId, TRENDS_KEPT_DAYS, trends.length === 0],
  );
  if (!trends.length) return;
  await db.query(
    `insert into trends (connected_account_id, collected_at, rank, topic, url, volume)
     select $1, now(), t.rank, t.topic, t.url, t.volume
     from unnest($2::text[], $3::text[], $4::int[]) with ordinality as t(topic, url, volume, rank)`,
    [
      connectedAccountId,
      trends.map((t) => t.topic),
      trends.map((t) => t.url),
      trends.map((t) => t.volume),
    ],
  );
}

/** The latest collection of the brand's account on `platform`, best ranked first. */
export async function latestTrends(
  db: Queryable,
  q: { accountId: string; brandId: string; platform: string; limit: number },
) {
  const { rows } = await db.query<{
    collected_at: Date;
    rank: number;
    topic: string;
    url: string | null;
    volume: number;
  }>(
    `select t.collected_at, t.rank, t.topic, t.url, t.volume
     from connected_accounts c
     join trends t on t.connected_account_id = c.id
     where c.account_id = $1 and c.brand_id = $2 and c.platform = $3
       and t.collected_at = (select max(collected_at) from trends where connected_account_id = c.id)
     order by t.rank limit $4`,
    [q.accountId, q.brandId, q.platform, q.limit],
  );
  return rows;
}
