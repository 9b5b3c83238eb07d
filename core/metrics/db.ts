// SQL for post metrics (sql/026_post_metrics.sql): what a collection reads and writes.

import type { PostCounts } from '../connectors/connector.ts';
import type { Queryable } from '../db/pool.ts';

/** How long after publication a post's engagement is collected. */
export const COLLECT_DAYS = 30;
/** A post younger than FRESH_HOURS is collected every FRESH_EVERY_MIN minutes, then every SETTLED_EVERY_HOURS hours. */
export const FRESH_HOURS = 48;
export const FRESH_EVERY_MIN = 15;
export const SETTLED_EVERY_HOURS = 6;
/** Posts one collection of one account reads at most (the rest wait for the next run). */
export const POSTS_PER_RUN = 500;

/**
 * A collection is due a minute early, so a cron every 15 minutes catches a post collected
 * 15 minutes ago even when the runs drift by a few seconds.
 */
const SLACK = "interval '1 minute'";

/** The connected accounts with a post published in the last COLLECT_DAYS days. */
export async function accountsWithRecentPosts(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select c.id::text from connected_accounts c
     where c.status = 'active' and exists (
       select 1 from posts p
       where p.brand_id = c.brand_id and p.platform = c.platform and p.status = 'published'
         and p.external_post_id is not null
         and p.published_at > now() - make_interval(days => $1))
     order by c.id`,
    [COLLECT_DAYS],
  );
  return rows.map((r) => r.id);
}

/** The account's published posts whose next collection is due, oldest collection first. */
export async function postsDue(
  db: Queryable,
  connectedAccountId: string,
): Promise<{ id: string; external_post_id: string }[]> {
  const { rows } = await db.query(
    `select p.id::text, p.external_post_id from connected_accounts c
     join posts p on p.brand_id = c.brand_id and p.platform = c.platform
     left join lateral (
       select max(m.collected_at) as at from post_metrics m where m.post_id = p.id) last on true
     where c.id = $1 and p.status = 'published' and p.external_post_id is not null
       and p.published_at > now() - make_interval(days => $2)
       and (last.at is null or last.at < now() + ${SLACK} - case
             when p.published_at > now() - make_interval(hours => $3)
             then make_interval(mins => $4) else make_interval(hours => $5) end)
     order by last.at nulls first, p.id
     limit $6`,
    [
      connectedAccountId,
      COLLECT_DAYS,
      FRESH_HOURS,
      FRESH_EVERY_MIN,
      SETTLED_EVERY_HOURS,
      POSTS_PER_RUN,
    ],
  );
  return rows;
}

/** One collection's counts, a row per post, all at one `collected_at`. */
export async function insertMetrics(
  db: Queryable,
  counts: { postId: string; counts: PostCounts }[],
): Promise<void> {
  if (!counts.length) return;
  await db.query(
    `insert into post_metrics (post_id, likes, reposts, replies, quotes, views)
     select * from unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::int[], $6::bigint[])`,
    [
      counts.map((c) => c.postId),
      counts.map((c) => c.counts.likes),
      counts.map((c) => c.counts.reposts),
      counts.map((c) => c.counts.replies),
      counts.map((c) => c.counts.quotes),
      counts.map((c) => c.counts.views),
    ],
  );
}
