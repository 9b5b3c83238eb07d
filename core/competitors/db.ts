// SQL for competitors (sql/028_competitors.sql).
import type { Queryable } from '../db/pool.ts';

export type CompetitorRow = {
  id: string;
  brand_id: string;
  platform: string;
  handle: string;
  ratio: number;
  floor: number;
  created_at: Date;
};

const COLUMNS = 'id::text, brand_id::text, platform, handle, ratio::float8, floor, created_at';

/**
 * Adds a profile unless the brand tracks `max` already (adds of one brand take turns, so two
 * cannot both pass the count) or tracks this one: 'limit_reached' or 'exists'.
 */
export async function insertCompetitorWithin(
  db: Queryable,
  max: number,
  c: {
    accountId: string;
    brandId: string;
    platform: string;
    handle: string;
    ratio: number;
    floor: number;
  },
): Promise<CompetitorRow | 'limit_reached' | 'exists'> {
  await db.query('select pg_advisory_xact_lock(hashtext($1))', [`competitors:${c.brandId}`]);
  const { rows: count } = await db.query<{ n: number }>(
    'select count(*)::int as n from competitors where brand_id = $1',
    [c.brandId],
  );
  if (count[0]!.n >= max) return 'limit_reached';
  const { rows } = await db.query<CompetitorRow>(
    `insert into competitors (account_id, brand_id, platform, handle, ratio, floor)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (brand_id, platform, handle) do nothing
     returning ${COLUMNS}`,
    [c.accountId, c.brandId, c.platform, c.handle, c.ratio, c.floor],
  );
  return rows[0] ?? 'exists';
}

export async function listCompetitorRows(
  db: Queryable,
  accountId: string,
  brandId: string,
): Promise<CompetitorRow[]> {
  const { rows } = await db.query<CompetitorRow>(
    `select ${COLUMNS} from competitors where account_id = $1 and brand_id = $2 order by id`,
    [accountId, brandId],
  );
  return rows;
}

/** Removes the account's profile; false when it has none of that id. */
export async function deleteCompetitorRow(db: Queryable, accountId: string, id: string) {
  const { rowCount } = await db.query('delete from competitors where id = $1 and account_id = $2', [
    id,
    accountId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** A tracked profile with what its watch needs. */
export type WatchedRow = CompetitorRow & { account_id: string };

export async function findCompetitor(db: Queryable, id: string): Promise<WatchedRow | undefined> {
  const { rows } = await db.query<WatchedRow>(
    `select ${COLUMNS}, account_id::text from competitors where id = $1`,
    [id],
  );
  return rows[0];
}

/** The profiles on `platforms` whose brand has an active account there to read them with. */
export async function watchableCompetitors(
  db: Queryable,
  platforms: readonly string[],
): Promise<{ id: string; brand_id: string }[]> {
  const { rows } = await db.query(
    `select c.id::text, c.brand_id::text from competitors c
     where c.platform = any($1::text[]) and exists (
       select 1 from connected_accounts a
       where a.brand_id = c.brand_id and a.platform = c.platform and a.status = 'active')
     order by c.id`,
    [platforms],
  );
  return rows;
}

/** A profile's posts as just read: new ones added, known ones' counts and caption updated. */
export async function upsertCompetitorPosts(
  db: Queryable,
  competitorId: string,
  posts: {
    id: string;
    postedAt: string;
    url: string | null;
    text: string;
    likes: number;
    reposts: number;
    replies: number;
  }[],
) {
  if (!posts.length) return;
  await db.query(
    `insert into competitor_posts (competitor_id, external_id, posted_at, permalink, caption,
                                   likes, reposts, replies)
     select $1, * from unnest($2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::int[],
                              $7::int[], $8::int[])
     on conflict (competitor_id, external_id) do update set likes = excluded.likes,
       reposts = excluded.reposts, replies = excluded.replies, caption = excluded.caption,
       permalink = excluded.permalink, read_at = now()`,
    [
      competitorId,
      posts.map((p) => p.id),
      posts.map((p) => p.postedAt),
      posts.map((p) => p.url),
      posts.map((p) => p.text),
      posts.map((p) => p.likes),
      posts.map((p) => p.reposts),
      posts.map((p) => p.replies),
    ],
  );
}

export type BreakoutRow = {
  id: string;
  permalink: string | null;
  caption: string;
  likes: number;
  reposts: number;
  replies: number;
  engagement: number;
  baseline: number;
  posted_at: Date;
};

/**
 * The profile's posts that broke out and that the account was never told about, each recorded
 * as reported (competitor_breakouts, in the caller's transaction: with the events): posted at
 * least `afterHours` and at most `withinHours` ago (a profile's first watch does not report
 * its old hits as news), with an engagement at least the profile's `ratio` times the median
 * of its previous `previous` posts and at least its `floor`. Other posts are judged again at
 * the next watch, their counts having grown, until they are `withinHours` old. A post is
 * reported once an account, known by its address (or its id without one: a Mastodon id means
 * something on one instance only), even if the profile was removed and added again or another
 * of its brands tracks it too (two watches at once: the primary key lets one through).
 */
export async function markBreakouts(
  db: Queryable,
  c: WatchedRow,
  rule: { afterHours: number; withinHours: number; previous: number },
): Promise<BreakoutRow[]> {
  const { rows } = await db.query<BreakoutRow>(
    `with judged as (
       select p.*, b.baseline from competitor_posts p
       cross join lateral (
         select percentile_cont(0.5) within group (order by q.engagement)::float8 as baseline,
                count(*) as n
         from (select engagement from competitor_posts q
               where q.competitor_id = p.competitor_id and q.posted_at < p.posted_at
               order by q.posted_at desc limit $3) q) b
       where p.competitor_id = $1
         and p.posted_at <= now() - make_interval(hours => $2)
         and p.posted_at > now() - make_interval(hours => $6)
         and b.n = $3 and p.engagement >= $4 * b.baseline and p.engagement >= $5
         and not exists (select 1 from competitor_breakouts r
                         where r.account_id = $7 and r.platform = $8
                           and r.post_key = coalesce(p.permalink, p.external_id))),
     reported as (
       insert into competitor_breakouts (account_id, platform, post_key)
       select $7, $8, coalesce(permalink, external_id) from judged
       on conflict do nothing
       returning post_key)
     select j.id::text, j.permalink, j.caption, j.likes, j.reposts, j.replies, j.engagement,
       j.baseline, j.posted_at
     from judged j join reported r on r.post_key = coalesce(j.permalink, j.external_id)
     order by j.posted_at`,
    [
      c.id,
      rule.afterHours,
      rule.previous,
      c.ratio,
      c.floor,
      rule.withinHours,
      c.account_id,
      c.platform,
    ],
  );
  return rows;
}

/** Keeps the profile's `keep` newest posts: what the next watches judge and measure against. */
export async function pruneCompetitorPosts(db: Queryable, competitorId: string, keep: number) {
  await db.query(
    `delete from competitor_posts where competitor_id = $1 and id not in (
       select id from competitor_posts where competitor_id = $1
       order by posted_at desc limit $2)`,
    [competitorId, keep],
  );
}
