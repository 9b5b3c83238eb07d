// SQL for post metrics (sql/026_post_metrics.sql): what a collection reads and writes.

import type { PostCounts } from '../connectors/schema.ts';
import type { Queryable } from '../db/pool.ts';

/** How long after publication a post's engagement is collected. */
export const COLLECT_DAYS = 30;
/** A post younger than FRESH_HOURS is collected every FRESH_EVERY_MIN minutes, then every SETTLED_EVERY_HOURS hours. */
export const FRESH_HOURS = 48;
export const FRESH_EVERY_MIN = 15;
export const SETTLED_EVERY_HOURS = 6;
/**
 * Posts one collection of one account reads at most (the rest wait for the next run): a
 * Mastodon token has 300 requests in 5 minutes, publication included, and a status is one.
 */
export const POSTS_PER_RUN = 100;

/**
 * A collection is due a minute early, so a cron every 15 minutes catches a post collected
 * 15 minutes ago even when the runs drift by a few seconds.
 */
const SLACK = "interval '1 minute'";

/** The connected accounts on `platforms` with a post published in the last COLLECT_DAYS days. */
export async function accountsWithRecentPosts(
  db: Queryable,
  platforms: readonly string[],
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select c.id::text from connected_accounts c
     where c.status = 'active' and c.platform = any($2::text[]) and exists (
       select 1 from posts p
       where p.brand_id = c.brand_id and p.platform = c.platform and p.status = 'published'
         and p.external_post_id is not null
         and p.published_at > now() - make_interval(days => $1))
     order by c.id`,
    [COLLECT_DAYS, platforms],
  );
  return rows.map((r) => r.id);
}

/**
 * The account's published posts whose next collection is due, longest unasked first (a post
 * the platform no longer answers for is asked again only when due, like the others).
 */
export async function postsDue(
  db: Queryable,
  connectedAccountId: string,
): Promise<{ id: string; external_post_id: string }[]> {
  const { rows } = await db.query(
    `select p.id::text, p.external_post_id from connected_accounts c
     join posts p on p.brand_id = c.brand_id and p.platform = c.platform
     left join post_metrics_checks chk on chk.post_id = p.id
     where c.id = $1 and p.status = 'published' and p.external_post_id is not null
       and p.published_at > now() - make_interval(days => $2)
       and (chk.checked_at is null or chk.checked_at < now() + ${SLACK} - case
             when p.published_at > now() - make_interval(hours => $3)
             then make_interval(mins => $4) else make_interval(hours => $5) end)
     order by chk.checked_at nulls first, p.id
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

/**
 * One collection's counts, a row per post added to the series, all at one `collected_at`,
 * each post's latest counts replaced, and every post `asked` (counted or not: the platform
 * may no longer have it) marked checked, in one statement.
 */
export async function insertMetrics(
  db: Queryable,
  counts: { postId: string; counts: PostCounts }[],
  asked: readonly string[] = counts.map((c) => c.postId),
): Promise<void> {
  if (!counts.length && !asked.length) return;
  await db.query(
    `with added as (
       insert into post_metrics (post_id, likes, reposts, replies, quotes, views)
       select * from unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::int[],
                            $6::bigint[])
       returning post_id, collected_at, likes, reposts, replies, quotes, views),
     latest as (
       insert into post_metrics_latest (post_id, collected_at, likes, reposts, replies, quotes,
                                        views)
       select * from added
       on conflict (post_id) do update set collected_at = excluded.collected_at,
         likes = excluded.likes, reposts = excluded.reposts, replies = excluded.replies,
         quotes = excluded.quotes, views = excluded.views)
     insert into post_metrics_checks (post_id, checked_at)
     select unnest($7::bigint[]), now()
     on conflict (post_id) do update set checked_at = excluded.checked_at`,
    [
      counts.map((c) => c.postId),
      counts.map((c) => c.counts.likes),
      counts.map((c) => c.counts.reposts),
      counts.map((c) => c.counts.replies),
      counts.map((c) => c.counts.quotes),
      counts.map((c) => c.counts.views),
      asked,
    ],
  );
}

type Range = {
  accountId: string;
  brandId: string;
  platform: string | null;
  from: Date;
  to: Date;
  timezone: string;
};

/**
 * The brand's posts published in [from, to), with their latest counts (none collected: 0):
 * totals, per day of publication in `timezone`, the 10 most engaging, and the latest
 * collection, as one JSON document.
 */
export async function analyticsOf(db: Queryable, r: Range) {
  const { rows } = await db.query<{ a: AnalyticsRows }>(
    `with ps as (
       select p.id, p.platform, p.published_at, p.permalink_url, l.collected_at,
         coalesce(l.likes, 0) as likes, coalesce(l.reposts, 0) as reposts,
         coalesce(l.replies, 0) as replies, coalesce(l.engagement, 0) as engagement
       from posts p left join post_metrics_latest l on l.post_id = p.id
       where p.brand_id = $2 and p.account_id = $1 and p.status = 'published'
         and p.published_at >= $3 and p.published_at < $4
         and ($5::text is null or p.platform = $5))
     select json_build_object(
       'totals', (select json_build_object('posts', count(*), 'likes', coalesce(sum(likes), 0),
                    'reposts', coalesce(sum(reposts), 0), 'replies', coalesce(sum(replies), 0),
                    'engagement', coalesce(sum(engagement), 0)) from ps),
       'days', (select coalesce(json_agg(d order by d.day), '[]') from (
                  select to_char(published_at at time zone $6, 'YYYY-MM-DD') as day,
                    count(*) as posts, sum(likes) as likes, sum(reposts) as reposts,
                    sum(replies) as replies, sum(engagement) as engagement
                  from ps group by 1) d),
       'top', (select coalesce(json_agg(t), '[]') from (
                 select id::text as post_id, platform, published_at, permalink_url, likes,
                   reposts, replies, engagement
                 from ps order by engagement desc, published_at desc limit 10) t),
       'collected_at', (select max(collected_at) from ps)) as a`,
    [r.accountId, r.brandId, r.from, r.to, r.platform, r.timezone],
  );
  return rows[0]!.a;
}

type Counted = { likes: number; reposts: number; replies: number; engagement: number };
export type AnalyticsRows = {
  totals: Counted & { posts: number };
  days: (Counted & { day: string; posts: number })[];
  top: (Counted & {
    post_id: string;
    platform: string;
    published_at: string;
    permalink_url: string | null;
  })[];
  collected_at: string | null;
};

/** Posts younger than this are still gathering engagement: best times leave them out. */
export const SETTLED_AFTER_HOURS = 48;
/** A slot with fewer posts ranks after every slot with enough (one lucky post is no pattern). */
export const MIN_SLOT_SAMPLES = 2;

/** Best times read the posts of this many days back (a year of habits, not a whole history). */
export const BEST_TIMES_DAYS = 365;

/**
 * The brand's published posts of the last BEST_TIMES_DAYS with collected counts, by hour of
 * the week in its time zone: each slot's median engagement and sample count, the best `limit`
 * first; and how many posts that read.
 */
export async function engagementBySlot(
  db: Queryable,
  q: {
    accountId: string;
    brandId: string;
    timezone: string;
    platform: string | null;
    limit: number;
  },
) {
  const { rows } = await db.query<{
    dow: number;
    hour: number;
    median: number;
    samples: number;
    total: number;
  }>(
    `select extract(dow from p.published_at at time zone $6)::int as dow,
       extract(hour from p.published_at at time zone $6)::int as hour,
       percentile_cont(0.5) within group (order by l.engagement)::float8 as median,
       count(*)::int as samples, sum(count(*)) over ()::int as total
     from posts p
     join post_metrics_latest l on l.post_id = p.id
     where p.brand_id = $2 and p.account_id = $1 and p.status = 'published'
       and ($3::text is null or p.platform = $3)
       and p.published_at < now() - make_interval(hours => $4)
       and p.published_at > now() - make_interval(days => $7)
     group by 1, 2
     order by count(*) >= $5 desc, median desc, samples desc, dow, hour`,
    [
      q.accountId,
      q.brandId,
      q.platform,
      SETTLED_AFTER_HOURS,
      MIN_SLOT_SAMPLES,
      q.timezone,
      BEST_TIMES_DAYS,
    ],
  );
  return { slots: rows.slice(0, q.limit), posts: rows[0]?.total ?? 0 };
}
