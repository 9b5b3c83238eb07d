// SQL for posts: rows, attachments, listing, status transitions and the publication's claim
// and outcome (each with its audit row in the same statement).
import { KeyChanged } from '../apikeys/schema.ts';
import { joinKeysStillHeld, keyStillHolds, keyStillHoldsParams } from '../apikeys/service.ts';
import type { Actor } from '../audit/schema.ts';
import type { PublishMedia } from '../connectors/schema.ts';
import { batched, refusedForInput } from '../db/batch.ts';
import type { Queryable } from '../db/pool.ts';
import type { Kind, Platform } from '../kernel/platforms.ts';
import type { KeyVersion } from '../kernel/principal.ts';
import type { DesignPostRow, PostStatus } from './schema.ts';

export type { DesignPostRow };

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
 * statement that the key still holds (./draftAsKey.ts): when it does not, nothing is
 * inserted and KeyChanged is thrown. Undefined when the brand is not the account's.
 */
export async function insertDraftAsKey(
  db: Queryable,
  p: NewPostRow & { scheduleAt: null },
  check: KeyVersion,
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
type DraftAsKey = { post: NewPostRow & { scheduleAt: null }; check: KeyVersion };

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

/** A post claimed for publication, with its account's credentials and its media. */
export type PublicationClaim = {
  claimed: boolean;
  id: string;
  uuid: string;
  account_id: string;
  platform: Platform;
  kind: Kind;
  body: string;
  hashtags: string | null;
  headline: string | null;
  scheduled_for: Date;
  publication_seq: number;
  account: {
    id: string;
    handle: string;
    status: 'active' | 'needs_reconnect';
    credentials: string | null;
  } | null;
  media: PublishMedia[];
};

// Takes a due post, or finds the attempt a crashed or failed run of this job left in
// `publishing`. A post whose time moved or that left `scheduled` is not returned.
const CLAIM = `
with claimed as (
  update posts set status = 'publishing', publication_seq = publication_seq + 1,
                   updated_at = now()
  where id = $1 and status = 'scheduled' and scheduled_for = $2::timestamptz
  returning *
), a as (
  insert into audit_log (account_id, post_id, action, from_status, to_status, actor_kind)
  select account_id, id, 'publish', 'scheduled', 'publishing', 'system' from claimed
), target as (
  select true as claimed, c.* from claimed c
  union all
  select false, p.* from posts p
  where p.id = $1 and p.status = 'publishing' and p.scheduled_for = $2::timestamptz
    and not exists (select 1 from claimed)
)
select t.claimed, t.id, t.uuid, t.account_id, t.platform, t.kind, t.body, t.hashtags,
       t.headline, t.scheduled_for, t.publication_seq,
       (select json_build_object('id', ca.id::text, 'handle', ca.handle, 'status', ca.status,
                                 'credentials', encode(ca.credentials, 'base64'))
        from connected_accounts ca
        where ca.brand_id = t.brand_id and ca.platform = t.platform) as account,
       coalesce((select json_agg(json_build_object('id', a.id::text, 'kind', a.kind,
                                                   'mime', a.mime, 'storageKey', a.storage_key,
                                                   'width', a.width, 'height', a.height,
                                                   'alt', a.alt_text)
                                 order by pa.position)
                 from post_assets pa join assets a on a.id = pa.asset_id
                 where pa.post_id = t.id), '[]') as media
from target t`;

/**
 * Claims the post for its publication (`scheduled` to `publishing`, with its audit row), or
 * finds the attempt a crashed or failed run left in `publishing`; undefined when the post's
 * time moved or it left `scheduled`.
 */
export async function claimPublication(
  db: Queryable,
  postId: string,
  scheduledFor: string,
): Promise<PublicationClaim | undefined> {
  const { rows } = await db.query<PublicationClaim>({
    name: 'claim_publication',
    text: CLAIM,
    values: [postId, scheduledFor],
  });
  return rows[0];
}

const FINISH = `
with p as (
  update posts set status = $3, external_post_id = $4, permalink_url = $5, error = $6,
                   published_at = case when $3 = 'published' then now() end,
                   updated_at = now()
  where id = $1 and status = 'publishing' and publication_seq = $2
  returning *
), a as (
  insert into audit_log (account_id, post_id, action, from_status, to_status, actor_kind,
                         detail)
  select account_id, id, status, 'publishing', status, 'system', $7::jsonb from p
)
select id::text, account_id::text from p`;

/**
 * Records a publication's outcome on the post with its audit row, if the attempt
 * (`publication_seq`) is still current; answers the post's ids then, else undefined.
 */
export async function finishPublication(
  db: Queryable,
  q: {
    postId: string;
    publicationSeq: number;
    status: 'published' | 'failed';
    externalPostId: string | null;
    permalinkUrl: string | null;
    error: string | null;
  },
): Promise<{ id: string; account_id: string } | undefined> {
  const { rows } = await db.query<{ id: string; account_id: string }>({
    name: 'finish_publication',
    text: FINISH,
    values: [
      q.postId,
      q.publicationSeq,
      q.status,
      q.externalPostId,
      q.permalinkUrl,
      q.error,
      JSON.stringify({ publication_seq: q.publicationSeq, error: q.error }),
    ],
  });
  return rows[0];
}

/**
 * Notes on a post still `publishing` why its attempt waits (a platform's rate limit or quota),
 * if the attempt is still current; the outcome replaces it.
 */
export async function notePublicationWait(
  db: Queryable,
  q: { postId: string; publicationSeq: number; reason: string },
): Promise<void> {
  await db.query(
    `update posts set error = $3
     where id = $1 and status = 'publishing' and publication_seq = $2`,
    [q.postId, q.publicationSeq, q.reason],
  );
}

// Posts left `publishing` that no job will ever try again: their publication job (read
// through Graphile Worker's public view) is gone, or is out of attempts and not running,
// e.g. after a worker was killed during the last attempt.
const ABANDONED = `
select p.id, p.platform, p.body, p.publication_seq
from posts p
left join graphile_worker.jobs g on g.key = $1 || p.id
where p.status = 'publishing' and p.updated_at < now() - $2 * interval '1 millisecond'
  and (g.id is null or (g.attempts >= g.max_attempts and g.locked_at is null))
limit 500`;

/** Posts left `publishing` with no attempt to come (their job gone or out of attempts). */
export async function abandonedPublications(
  db: Queryable,
  jobKeyPrefix: string,
  afterMs: number,
): Promise<Pick<PublicationClaim, 'id' | 'platform' | 'body' | 'publication_seq'>[]> {
  const { rows } = await db.query(ABANDONED, [jobKeyPrefix, afterMs]);
  return rows;
}

/** One publication attempt's remembered step (PublicationSteps), if it was remembered. */
export async function recallPublicationStep(
  db: Queryable,
  attempt: { postId: string; publicationSeq: number },
  step: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ value: string }>(
    `select value from publication_steps
     where post_id = $1 and publication_seq = $2 and step = $3`,
    [attempt.postId, attempt.publicationSeq, step],
  );
  return rows[0]?.value;
}

/** Remembers a step of one attempt once: a step already remembered keeps its first value. */
export async function rememberPublicationStep(
  db: Queryable,
  attempt: { postId: string; publicationSeq: number },
  step: string,
  value: string,
): Promise<void> {
  await db.query(
    `insert into publication_steps (post_id, publication_seq, step, value)
     values ($1, $2, $3, $4) on conflict do nothing`,
    [attempt.postId, attempt.publicationSeq, step, value],
  );
}
