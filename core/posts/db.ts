// SQL for posts: rows, attachments, listing and status transitions (each with its audit row
// in the same statement).
import {
  joinKeysStillHeld,
  keyStillHolds,
  keyStillHoldsParams,
  type RememberedKey,
} from '../apikeys/db.ts';
import type { Actor } from '../audit/actor.ts';
import { KeyChanged } from '../auth/knownKeys.ts';
import { batched, refusedForInput } from '../db/batch.ts';
import type { Queryable } from '../db/pool.ts';
import type { Kind, Platform } from '../kernel/platforms.ts';
import type { WebhookEvent } from '../webhooks/schema.ts';
import type { PostStatus } from './schema.ts';

export type PostRow = {
  id: string;
  uuid: string;
  account_id: string;
  brand_id: string;
  brand_uuid: string;
  platform: Platform;
  kind: Kind;
  status: PostStatus;
  body: string;
  hashtags: string | null;
  headline: string | null;
  scheduled_for: Date | null;
  approved_at: Date | null;
  favorited_at: Date | null;
  rejection_reason: string | null;
  rejection_code: string | null;
  publication_seq: number;
  external_post_id: string | null;
  permalink_url: string | null;
  published_at: Date | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  asset_ids: string[];
  design_id: string | null;
  source_id: string | null;
  suggested_for: Date | null;
};

/** The full post as PostRow, from a relation `p` (a table or a CTE) of post rows. */
const selectPosts = (from: string) => `
  select p.*, b.uuid as brand_uuid,
         array(select pa.asset_id::text from post_assets pa
               where pa.post_id = p.id order by pa.position) as asset_ids
  from ${from} p join brands b on b.id = p.brand_id`;

export type NewPostRow = {
  accountId: string;
  brandId: string;
  platform: Platform;
  kind: Kind;
  body: string;
  hashtags: string | null;
  /** ISO time when created scheduled; the post is then approved as well. */
  scheduleAt: string | null;
};

/** What Postgres makes of a new post; the rest of its row is the input or a column default. */
type Inserted = Pick<
  PostRow,
  'id' | 'uuid' | 'status' | 'scheduled_for' | 'approved_at' | 'created_at' | 'brand_uuid'
>;

/** A new post's row from its input and what the insert returned (the columns' defaults). */
const newPostRow = (p: NewPostRow, r: Inserted): PostRow => ({
  ...r,
  account_id: p.accountId,
  brand_id: p.brandId,
  platform: p.platform,
  kind: p.kind,
  body: p.body,
  hashtags: p.hashtags,
  headline: null,
  favorited_at: null,
  rejection_reason: null,
  rejection_code: null,
  publication_seq: 0,
  external_post_id: null,
  permalink_url: null,
  published_at: null,
  error: null,
  updated_at: r.created_at,
  // A new post has no attachments yet: the caller adds them in the same transaction.
  asset_ids: [],
  design_id: null,
  source_id: null,
  suggested_for: null,
});

// The brand must be the account's; the audit row is written in the same statement. Only
// what Postgres decides comes back (a row of every column cost a third of the statement).
const INSERT_POST = `
  p as (
    insert into posts (account_id, brand_id, platform, kind, body, hashtags, status,
                       scheduled_for, approved_at)
    select $1, b.id, $3, $4, $5, $6,
           case when $7::timestamptz is null then 'draft' else 'scheduled' end,
           $7::timestamptz,
           case when $7::timestamptz is null then null else now() end
    from b
    returning id, uuid, status, scheduled_for, approved_at, created_at
  ), a as (
    insert into audit_log (account_id, post_id, action, to_status, actor_kind, actor_id)
    select $1, id, 'create', status, $8, $9 from p
  )`;

/** $1 to $6 of both insert statements. */
const postParams = (p: NewPostRow) => [
  p.accountId,
  p.brandId,
  p.platform,
  p.kind,
  p.body,
  p.hashtags,
];

/**
 * Inserts a post for a brand the account owns, with its `create` audit row, in one
 * statement. Undefined when the brand is not the account's.
 */
export async function insertPost(
  db: Queryable,
  p: NewPostRow,
  actor: Actor,
): Promise<PostRow | undefined> {
  const { rows } = await db.query<Inserted>({
    name: 'insert_post',
    text: `with b as (select id, uuid from brands where id = $2 and account_id = $1), ${INSERT_POST}
           select p.*, b.uuid as brand_uuid from p, b`,
    values: [...postParams(p), p.scheduleAt, actor.kind, actor.id],
  });
  return rows[0] && newPostRow(p, rows[0]);
}

/**
 * insertPost for a draft (no schedule) made by a remembered API key, confirming in the same
 * statement that the key still holds (core/auth/knownKeys.ts): when it does not, nothing is
 * inserted and KeyChanged is thrown. Undefined when the brand is not the account's.
 */
export async function insertDraftAsKey(
  db: Queryable,
  p: NewPostRow & { scheduleAt: null },
  check: RememberedKey,
): Promise<PostRow | undefined> {
  // No row when the key changed; a row without a post when the brand is not the account's.
  // The status and times are the columns' defaults.
  const { rows } = await db.query<Pick<Inserted, 'id' | 'uuid' | 'created_at' | 'brand_uuid'>>({
    name: 'insert_draft_as_key',
    // The audit row's actor is the key the statement confirmed.
    text: `with k as (${keyStillHolds(7)}),
                b as (select b.id, b.uuid, k.key_id from k
                      left join brands b on b.id = $2 and b.account_id = k.account_id
                      where k.account_id = $1),
                p as (insert into posts (account_id, brand_id, platform, kind, body, hashtags)
                      select $1, id, $3, $4, $5, $6 from b where id is not null
                      returning id, uuid, created_at),
                a as (insert into audit_log
                        (account_id, post_id, action, to_status, actor_kind, actor_id)
                      select $1, p.id, 'create', 'draft', 'api_key', b.key_id::text from p, b)
           select p.id, p.uuid, p.created_at, b.uuid as brand_uuid from b left join p on true`,
    values: [...postParams(p), ...keyStillHoldsParams(check)],
  });
  const r = rows[0];
  if (!r) throw new KeyChanged();
  if (r.id === null) return undefined;
  return newPostRow(p, { ...r, status: 'draft', scheduled_for: null, approved_at: null });
}

/** A plain draft asked for by a remembered API key (insertDraftAsKey's arguments). */
type DraftAsKey = { post: NewPostRow & { scheduleAt: null }; check: RememberedKey };

// insertDraftAsKey for many drafts in one statement: row n of the input arrays is draft n.
// Each draft's key is checked, its brand looked up and its audit row written as they are
// alone; a new post is told apart by the uuid the statement gives it (RETURNING has no input
// row number).
const INSERT_DRAFTS_AS_KEYS = `
  with r as (
    select * from unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[],
                         $6::text[], $7::bigint[], $8::text[])
      with ordinality as r(account_id, brand_id, platform, kind, body, hashtags, key_id,
                           row_version, n)
  ), held as materialized (
    select r.*, b.id as found_brand_id, b.uuid as brand_uuid, gen_random_uuid() as uuid
    from r ${joinKeysStillHeld('r')}
    left join brands b on b.id = r.brand_id and b.account_id = k.account_id
    where k.account_id = r.account_id
  ), p as (
    insert into posts (uuid, account_id, brand_id, platform, kind, body, hashtags)
    select uuid, account_id, found_brand_id, platform, kind, body, hashtags
    from held where found_brand_id is not null order by n
    returning id, uuid, created_at
  ), audited as (
    insert into audit_log (account_id, post_id, action, to_status, actor_kind, actor_id)
    select held.account_id, p.id, 'create', 'draft', 'api_key', held.key_id::text
    from p join held using (uuid)
  )
  select held.n::int, p.id, p.uuid, p.created_at, held.brand_uuid
  from held left join p using (uuid)`;

/**
 * insertDraftAsKey for several drafts in one statement (and one commit), each with the
 * outcome it would have alone, in order (KeyChanged as an error to throw). The statement
 * fails as a whole if any draft would fail alone with an error.
 */
async function insertDraftsAsKeys(
  db: Queryable,
  drafts: DraftAsKey[],
): Promise<(PostRow | undefined | KeyChanged)[]> {
  const column = <T>(f: (d: DraftAsKey) => T) => drafts.map(f);
  const { rows } = await db.query<
    Pick<Inserted, 'id' | 'uuid' | 'created_at' | 'brand_uuid'> & { n: number }
  >({
    name: 'insert_drafts_as_keys',
    text: INSERT_DRAFTS_AS_KEYS,
    values: [
      column((d) => d.post.accountId),
      column((d) => d.post.brandId),
      column((d) => d.post.platform),
      column((d) => d.post.kind),
      column((d) => d.post.body),
      column((d) => d.post.hashtags),
      column((d) => d.check.key_id),
      column((d) => d.check.row_version),
    ],
  });
  // A draft whose key changed has no row; one whose brand is not the account's, no post.
  const outcomes: (PostRow | undefined | KeyChanged)[] = drafts.map(() => new KeyChanged());
  for (const { n, ...r } of rows)
    outcomes[n - 1] =
      r.id === null
        ? undefined
        : newPostRow(drafts[n - 1]!.post, {
            ...r,
            status: 'draft',
            scheduled_for: null,
            approved_at: null,
          });
  return outcomes;
}

/**
 * insertDraftAsKey on a pool, in one statement with the drafts other requests ask for
 * meanwhile when the pool is busy with such statements (../db/batch.ts): the post, undefined
 * when the brand is not the account's, or KeyChanged thrown.
 */
export const insertDraftAsKeyBatched = batched<DraftAsKey, PostRow | undefined>({
  one: (pool, d) => insertDraftAsKey(pool, d.post, d.check),
  many: insertDraftsAsKeys,
  retryAlone: refusedForInput,
  maxInFlight: 4,
  maxBatch: 32,
});

/** Replaces a post's attachments with `assetIds`, in order. */
export async function setPostAssets(db: Queryable, postId: string, assetIds: string[]) {
  await db.query('delete from post_assets where post_id = $1', [postId]);
  if (!assetIds.length) return;
  await db.query(
    `insert into post_assets (post_id, position, asset_id)
     select $1, ord - 1, id from unnest($2::bigint[]) with ordinality as t(id, ord)`,
    [postId, assetIds],
  );
}

export async function findOwnedPost(
  db: Queryable,
  accountId: string,
  postId: string,
): Promise<PostRow | undefined> {
  const { rows } = await db.query<PostRow>(
    `${selectPosts('posts')} where p.id = $1 and p.account_id = $2`,
    [postId, accountId],
  );
  return rows[0];
}

export async function listPostRows(
  db: Queryable,
  q: { accountId: string; brandId: string; status: PostStatus; limit: number },
): Promise<PostRow[]> {
  const { rows } = await db.query<PostRow>({
    name: 'list_posts',
    text: `${selectPosts('posts')}
      where p.brand_id = $1 and p.account_id = $2 and p.status = $3
      order by p.id desc limit $4`,
    values: [q.brandId, q.accountId, q.status, q.limit],
  });
  return rows;
}

/**
 * A brand's posts with a time in [from, to): scheduled ones by when they are due, published
 * and failed ones by when they went (or were due), oldest first, at most `limit`.
 */
export async function postRowsBetween(
  db: Queryable,
  q: { accountId: string; brandId: string; from: string; to: string; limit: number },
): Promise<PostRow[]> {
  const { rows } = await db.query<PostRow>(
    `${selectPosts('posts')}
      where p.brand_id = $1 and p.account_id = $2
        and p.status in ('scheduled', 'publishing', 'published', 'failed')
        and coalesce(p.published_at, p.scheduled_for) >= $3::timestamptz
        and coalesce(p.published_at, p.scheduled_for) < $4::timestamptz
      order by coalesce(p.published_at, p.scheduled_for), p.id limit $5`,
    [q.brandId, q.accountId, q.from, q.to, q.limit],
  );
  return rows;
}

/** A time column's new value: a time, none, the statement's `now()`, or `now()` if unset. */
export type Stamp = Date | string | null | 'now' | 'now_unless_set';

/**
 * The columns a transition may change, typed. Only the keys present are written; their
 * values travel as parameters, so a new column cannot shift another's.
 */
export type PostPatch = {
  status?: PostStatus;
  body?: string;
  hashtags?: string | null;
  headline?: string | null;
  kind?: Kind;
  scheduled_for?: Stamp;
  approved_at?: Stamp;
  favorited_at?: Stamp;
  rejection_reason?: string | null;
  rejection_code?: string | null;
  error?: string | null;
};

/** Each patchable column with the SQL type its parameter is cast to. */
const PATCH_COLUMNS: { [K in keyof Required<PostPatch>]: string } = {
  status: 'text',
  body: 'text',
  hashtags: 'text',
  headline: 'text',
  kind: 'text',
  scheduled_for: 'timestamptz',
  approved_at: 'timestamptz',
  favorited_at: 'timestamptz',
  rejection_reason: 'text',
  rejection_code: 'text',
  error: 'text',
};

/** The SET clause for `patch`, its parameters numbered from `firstParam`. */
function setClause(patch: PostPatch, firstParam: number): { sql: string; params: unknown[] } {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const [column, type] of Object.entries(PATCH_COLUMNS) as [keyof PostPatch, string][]) {
    const value = patch[column];
    if (value === undefined) continue;
    if (value === 'now') sets.push(`${column} = now()`);
    else if (value === 'now_unless_set') sets.push(`${column} = coalesce(posts.${column}, now())`);
    else {
      params.push(value);
      sets.push(`${column} = $${firstParam + params.length - 1}::${type}`);
    }
  }
  sets.push('updated_at = now()');
  return { sql: sets.join(', '), params };
}

export type Transition = {
  postId: string;
  accountId: string;
  /** Statuses the operation may start from. */
  from: readonly PostStatus[];
  /** What the transition changes. */
  patch: PostPatch;
  action: string;
  actor: Actor;
  detail?: Record<string, unknown>;
};

export type TransitionResult =
  | { outcome: 'done'; post: PostRow }
  | { outcome: 'not_found' }
  | { outcome: 'wrong_status'; status: PostStatus };

/**
 * Applies a status transition under a row lock, with its audit row, in one statement.
 * Tells apart a post that is not the account's from one in a status the operation does not
 * start from.
 */
export async function transitionPost(db: Queryable, t: Transition): Promise<TransitionResult> {
  const fixed = [
    t.postId,
    t.accountId,
    t.from,
    t.action,
    t.actor.kind,
    t.actor.id,
    t.detail ? JSON.stringify(t.detail) : null,
  ];
  const set = setClause(t.patch, fixed.length + 1);
  const { rows } = await db.query<PostRow & { current_status: PostStatus; changed: boolean }>(
    `
    with old as (
      select id, status from posts where id = $1 and account_id = $2 for update
    ), changed as (
      update posts set ${set.sql}
      from old where posts.id = old.id and old.status = any($3::text[])
      returning posts.*, old.status as from_status
    ), a as (
      insert into audit_log (account_id, post_id, action, from_status, to_status, actor_kind,
                             actor_id, detail)
      select account_id, id, $4, from_status, status, $5, $6, $7::jsonb from changed
    )
    select old.status as current_status, c.id is not null as changed, c.*,
           b.uuid as brand_uuid,
           array(select pa.asset_id::text from post_assets pa
                 where pa.post_id = old.id order by pa.position) as asset_ids
    from old left join changed c on c.id = old.id left join brands b on b.id = c.brand_id`,
    [...fixed, ...set.params],
  );
  const row = rows[0];
  if (!row) return { outcome: 'not_found' };
  if (!row.changed) return { outcome: 'wrong_status', status: row.current_status };
  const { current_status: _s, changed: _c, ...post } = row;
  return { outcome: 'done', post };
}

// Posts as native designs see them (core/designs): the design a post shows and the design's
// rendered pages as its attachments. A design's pages replace a post's attachments only while
// the post is not published or being published: those keep what they showed.

const UNPUBLISHED = `status not in ('published', 'publishing')`;

export type DesignPostRow = {
  id: string;
  status: PostStatus;
  design_id: string | null;
  platform: Platform;
  body: string;
};

/**
 * The account's post with what a design edit needs, locked against concurrent changes to it
 * (`no key update`: a render inserting its attachments only needs a key-share lock).
 */
export async function lockPost(
  db: Queryable,
  accountId: string,
  postId: string,
): Promise<DesignPostRow | undefined> {
  const { rows } = await db.query<DesignPostRow>(
    `select id::text, status, design_id::text, platform, body from posts
     where id = $1 and account_id = $2 for no key update`,
    [postId, accountId],
  );
  return rows[0];
}

/** The design a post shows, if any (no lock: for reads). */
export async function designIdOfPost(
  db: Queryable,
  accountId: string,
  postId: string,
): Promise<{ design_id: string | null } | undefined> {
  const { rows } = await db.query<{ design_id: string | null }>(
    'select design_id::text from posts where id = $1 and account_id = $2',
    [postId, accountId],
  );
  return rows[0];
}

/** The posts that show this design and may still change, in id order. */
export async function unpublishedPostsOf(
  db: Queryable,
  designId: string,
): Promise<{ id: string; platform: Platform }[]> {
  const { rows } = await db.query<{ id: string; platform: Platform }>(
    `select id::text, platform from posts where design_id = $1 and ${UNPUBLISHED} order by id`,
    [designId],
  );
  return rows;
}

/** The posts showing this design that are published or being published, in id order. */
export async function publishedPostsOf(db: Queryable, designId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id::text from posts where design_id = $1 and not (${UNPUBLISHED}) order by id`,
    [designId],
  );
  return rows.map((r) => r.id);
}

/** Whether posts other than `postId` show this design (published ones included). */
export async function designShownByOthers(db: Queryable, designId: string, postId: string) {
  const { rows } = await db.query('select 1 from posts where design_id = $1 and id <> $2 limit 1', [
    designId,
    postId,
  ]);
  return rows.length > 0;
}

/** Points a post at a design (its attachments are set apart: setPostAssets). */
/**
 * What a generated draft was written from (its source, when it had one), its headline, and
 * the slot draft_week suggests for it.
 */
export async function setPostOrigin(
  db: Queryable,
  postId: string,
  origin: { sourceId: string | null; headline: string | null; suggestedFor?: string | null },
) {
  await db.query(
    'update posts set source_id = $2, headline = $3, suggested_for = $4 where id = $1',
    [postId, origin.sourceId, origin.headline, origin.suggestedFor ?? null],
  );
}

export async function setPostDesign(db: Queryable, postId: string, designId: string) {
  await db.query('update posts set design_id = $2 where id = $1', [postId, designId]);
}

/** Moves those of `postIds` that show `fromDesignId` to `toDesignId`. */
export async function movePostsToDesign(
  db: Queryable,
  postIds: string[],
  fromDesignId: string,
  toDesignId: string,
): Promise<void> {
  await db.query(
    'update posts set design_id = $3 where id = any($1::bigint[]) and design_id = $2',
    [postIds, fromDesignId, toDesignId],
  );
}

/** A post's kind follows the pages of its design (image or carousel). */
export async function setPostKind(db: Queryable, postId: string, kind: Kind) {
  await db.query('update posts set kind = $2 where id = $1', [postId, kind]);
}

/**
 * Detaches every attachment of the design's unpublished posts, before a render files its new
 * pages: the old pages that another post still shows are then told apart from those no post
 * shows any more (core/assets/db.ts keeps the first, deletes the others).
 */
export async function detachFromUnpublishedPostsOf(db: Queryable, designId: string) {
  await db.query(
    `delete from post_assets where post_id in (
       select id from posts where design_id = $1 and ${UNPUBLISHED})`,
    [designId],
  );
}

/** Attaches `pageIds`, in order, to each unpublished post showing the design. */
export async function attachToUnpublishedPostsOf(
  db: Queryable,
  designId: string,
  pageIds: string[],
) {
  await db.query(
    `insert into post_assets (post_id, position, asset_id)
     select l.id, p.n - 1, p.asset_id
     from (select id from posts where design_id = $1 and ${UNPUBLISHED}) l,
          unnest($2::bigint[]) with ordinality as p(asset_id, n)`,
    [designId, pageIds],
  );
}

/** How many of the account's posts are in each status (statuses with none left out). */
export async function postCountsByStatus(
  db: Queryable,
  accountId: string,
): Promise<Partial<Record<PostStatus, number>>> {
  const { rows } = await db.query<{ status: PostStatus; n: number }>(
    'select status, count(*)::int as n from posts where account_id = $1 group by status',
    [accountId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * Records events that are not a post's (a competitor breakout), their bodies serialized
 * already; answers them for the webhook fan-out (queueEventDeliveries), in the same
 * transaction.
 */
export async function insertEvents(
  db: Queryable,
  events: { accountId: string; type: WebhookEvent; body: string }[],
): Promise<{ id: string; account_id: string; type: string }[]> {
  if (!events.length) return [];
  const { rows } = await db.query(
    `insert into events (account_id, type, body)
     select * from unnest($1::bigint[], $2::text[], $3::text[])
     returning id::text, account_id::text, type`,
    [events.map((e) => e.accountId), events.map((e) => e.type), events.map((e) => e.body)],
  );
  return rows;
}
