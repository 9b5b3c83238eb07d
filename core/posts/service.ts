// Post operations and the state machine of CONTRACT.md ("Post statuses"). REST, GraphQL and
// MCP call these; each parses its own input shape into the schemas of ./schema.ts first.
import { ownedAssets } from '../assets/service.ts';
import { type Actor, actorOf } from '../audit/schema.ts';
import { brandFor, requireOwnedBrand } from '../brands/service.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { cancelPublication, enqueuePublication } from '../jobs/tasks.ts';
import { conflict, invalid, notFound, ValidationFailed } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import {
  inferKind,
  type MediaFacts,
  type PostShape,
  platformFitIssues,
} from '../kernel/platformFit.ts';
import { CAPABILITIES, type Kind, type MediaKind, type Platform } from '../kernel/platforms.ts';

import {
  postCountsByStatus as countByStatus,
  findOwnedPost,
  insertPost,
  listPostRows,
  lockPost,
  type PostRow,
  postRowsBetween,
  setPostAssets,
  setPostOrigin,
  type Transition,
  transitionPost,
} from './db.ts';
import { assertKeyLookedUp, insertDraft } from './draftAsKey.ts';
import type {
  Caller,
  ComposeInput,
  CreatePostInput,
  ListPostsQuery,
  Post,
  PostAction,
  PostStatus,
  PostView,
  RejectPostInput,
  SchedulePostInput,
  UpdatePostInput,
} from './schema.ts';
import { lockSlots, nextFreeSlot } from './slots.ts';
import { toPost } from './view.ts';
import { connectionWarnings } from './warnings.ts';

// What a design asks of the posts that show it lives in ./designLinks.ts; its operations are
// offered here, at the front door, so this file stays the post state machine.
export {
  attachDesignPages,
  createPostOfDesign,
  designOfPost,
  designShownByOtherPosts,
  detachDesignPages,
  freezePublishedPostsOf,
  lockEditablePost,
  refitPostsToLayout,
  showDesignOnPost,
  unpublishedPostsShowing,
} from './designLinks.ts';
export type { Caller } from './schema.ts';
export { toPost } from './view.ts';

/** Where each operation may start from (CONTRACT.md "Post statuses"). */
export const ALLOWED_FROM = {
  approve: ['draft', 'rejected'],
  reject: ['draft', 'approved', 'rejected', 'scheduled', 'failed'],
  // From `scheduled` it is a reschedule: the post keeps its one job, moved to the new time.
  schedule: ['draft', 'rejected', 'approved', 'failed', 'scheduled'],
  unschedule: ['scheduled'],
  update: ['draft', 'approved', 'rejected', 'scheduled', 'failed'],
  favorite: ['draft', 'approved', 'rejected', 'scheduled', 'publishing', 'published', 'failed'],
} as const satisfies Record<PostAction, readonly PostStatus[]>;

/** The operations a post in `status` allows, from the rules above (the dashboard's buttons). */
export const actionsOf = (status: PostStatus): PostAction[] =>
  (Object.keys(ALLOWED_FROM) as PostAction[]).filter((action) =>
    (ALLOWED_FROM[action] as readonly PostStatus[]).includes(status),
  );

/** A post with the actions its status allows, as the dashboard's pages get it. */
export const toPostView = (post: Post): PostView => ({ ...post, actions: actionsOf(post.status) });

/** A schedule time must lie in the future. */
function assertFuture(at: string, loc: (string | number)[]): void {
  if (Date.parse(at) > Date.now()) return;
  throw invalid(loc, `must be in the future; it is ${at} and now is ${new Date().toISOString()}`);
}

/**
 * What the limits read of the attached assets, in order: owned, existing, and never audio. When the
 * list is given (`given`), never another design's rendered page: a page belongs to its design
 * and a re-render replaces it, so attached by id it would vanish from this post at the
 * design's next edit. Refusing it, and linking the design with design_id instead (the post
 * then follows the design's current pages), keeps every post's media explicit; the render
 * still keeps an old page a post shows (core/assets/db.ts replaceDesignPages) for attachments
 * made before this rule and for posts moving between designs.
 */
async function attachedMedia(
  db: Queryable,
  accountId: string,
  ids: string[],
  given?: { designId: string | null },
): Promise<MediaFacts[]> {
  if (!ids.length) return [];
  const found = new Map((await ownedAssets(db, accountId, ids)).map((a) => [a.id, a]));
  return ids.map((id, i) => {
    const asset = found.get(id);
    if (!asset) throw notFound(`Asset ${id}`);
    if (asset.kind === 'audio')
      throw invalid(['body', 'asset_ids', i], 'audio assets cannot be attached to a post');
    if (given && asset.design_id !== null && asset.design_id !== given.designId)
      throw invalid(
        ['body', 'asset_ids', i],
        `asset ${id} is a rendered page of design ${asset.design_id}, replaced whenever the ` +
          `design renders again: link the design with design_id instead (POST /v1/posts with ` +
          `"design_id": "${asset.design_id}")`,
        'design_page',
      );
    return {
      id,
      kind: asset.kind,
      mime: asset.mime,
      bytes: asset.bytes,
      durationS: asset.duration_s,
      pixels: asset.width && asset.height ? asset.width * asset.height : null,
      width: asset.width,
      height: asset.height,
    };
  });
}

const kindsOf = (facts: MediaFacts[]) => facts.map((f) => f.kind);

function assertFits(shape: PostShape): void {
  const issues = platformFitIssues(shape);
  if (issues.length) throw new ValidationFailed(issues);
}

/**
 * Creates a post. A plain draft (no schedule, no media) is one statement; a caller admitted on
 * a remembered API key is confirmed in that statement too, and anything else throws KeyChanged
 * for it before writing (./draftAsKey.ts), for the caller to look the key up and call again.
 */
export async function createPost(
  pool: Pool,
  caller: Caller,
  input: CreatePostInput,
): Promise<Post> {
  const assetIds = input.asset_ids ?? [];
  const plain = !input.schedule_at && !assetIds.length;
  if (!plain) assertKeyLookedUp(caller);
  const brandId = brandFor(caller, input.brand_id, 'brand_id');
  const facts = await attachedMedia(pool, caller.accountId, assetIds, { designId: null });
  const media = kindsOf(facts);
  const kind = input.kind ?? inferKind(input.platform, media);
  const hashtags = input.hashtags || null;
  assertFits({ platform: input.platform, kind, body: input.body, hashtags, media, facts });
  const scheduleAt = input.schedule_at ?? null;
  if (scheduleAt) assertFuture(scheduleAt, ['body', 'schedule_at']);

  const row = { ...input, accountId: caller.accountId, brandId, kind, hashtags, scheduleAt };
  // Attachments and jobs need a transaction.
  const created = plain
    ? await insertDraft(pool, caller, row)
    : await withTransaction(pool, async (tx) => {
        const post = await insertPost(tx, row, actorOf(caller.credential));
        if (!post) return undefined;
        await setPostAssets(tx, post.id, assetIds);
        if (scheduleAt)
          await enqueuePublication(tx, { post_id: post.id, scheduled_for: scheduleAt });
        return { ...post, asset_ids: assetIds };
      });
  if (!created) throw notFound('Brand');
  return toPost(created);
}

/** A post and what its answer warns of (./warnings.ts): REST's receipt, MCP's results. */
export type WarnedPost = { post: Post; warnings: string[] };

/**
 * createPost, with the answer's warnings. The brand's connections are read beside the insert,
 * remembered per brand for a second (core/connections/health.ts): a plain draft is one
 * statement when they are remembered and two when not, the read running on a second pool
 * connection before the insert has confirmed a remembered key. That read is of the key's own
 * account's rows only, and a refused key's answer (401/403) drops what it read.
 */
export async function createPostWithWarnings(
  pool: Pool,
  caller: Caller,
  input: CreatePostInput,
): Promise<WarnedPost> {
  const brandId = brandFor(caller, input.brand_id, 'brand_id');
  const [post, warnings] = await Promise.all([
    createPost(pool, caller, input),
    connectionWarnings(pool, caller.accountId, brandId, input.platform, input.schedule_at),
  ]);
  return { post, warnings };
}

export async function listPosts(pool: Pool, caller: Caller, q: ListPostsQuery): Promise<Post[]> {
  const brandId = brandFor(caller, q.brand_id, 'brand_id');
  const rows = await listPostRows(pool, {
    accountId: caller.accountId,
    brandId,
    status: q.status_filter,
    limit: q.limit,
  });
  // An explicit brand must be the account's: an empty list would hide a wrong id.
  if (!rows.length && q.brand_id) await requireOwnedBrand(pool, caller.accountId, brandId);
  return rows.map(toPost);
}

/**
 * The composer: one text as a post for each platform. Every platform's fit (and the time) is
 * checked before any post is made, so one platform that would refuse the text stops them all
 * with its reasons, and nothing is half saved; then each is a draft, scheduled at the time, or
 * scheduled at its platform's next free slot.
 */
export async function composePosts(
  pool: Pool,
  caller: Caller,
  input: ComposeInput,
): Promise<{ posts: Post[]; warnings: string[] }> {
  const platforms = [...new Set(input.platforms)];
  const assetIds = input.asset_ids ?? [];
  const facts = await attachedMedia(pool, caller.accountId, assetIds, { designId: null });
  const media = kindsOf(facts);
  const issues = platforms.flatMap((platform) =>
    platformFitIssues({
      platform,
      kind: inferKind(platform, media),
      body: input.body,
      hashtags: null,
      media,
      facts,
    }),
  );
  if (issues.length) throw new ValidationFailed(issues);
  if (input.schedule_at) assertFuture(input.schedule_at, ['body', 'schedule_at']);
  await requireOwnedBrand(pool, caller.accountId, brandFor(caller, input.brand_id, 'brand_id'));
  const made: Post[] = [];
  for (const platform of platforms) {
    const post = await createPost(pool, caller, {
      platform,
      body: input.body,
      brand_id: input.brand_id,
      ...(assetIds.length ? { asset_ids: assetIds } : {}),
      schedule_at: input.when === 'at' ? input.schedule_at : undefined,
    });
    made.push(
      input.when === 'next_free_slot' ? await schedulePost(pool, caller, post.id, {}) : post,
    );
  }
  const warnings = await Promise.all(
    made.map((p) =>
      connectionWarnings(pool, caller.accountId, p.brand_id, p.platform, p.scheduled_for),
    ),
  );
  return { posts: made, warnings: warnings.flat() };
}

/** The calendar's posts: a brand's scheduled and published (or failed) posts in a range. */
export async function calendarPosts(
  pool: Pool,
  caller: Caller,
  q: { brand_id?: string; from: string; to: string },
): Promise<Post[]> {
  const brand = await requireOwnedBrand(
    pool,
    caller.accountId,
    brandFor(caller, q.brand_id, 'brand_id'),
  );
  const rows = await postRowsBetween(pool, {
    accountId: caller.accountId,
    brandId: brand.id,
    from: q.from,
    to: q.to,
    limit: CALENDAR_LIMIT,
  });
  return rows.map(toPost);
}

/** Posts a calendar range answers at most (a month of a busy brand). */
export const CALENDAR_LIMIT = 500;

async function requirePost(db: Queryable, caller: Caller, postId: string): Promise<PostRow> {
  const row = isId(postId) ? await findOwnedPost(db, caller.accountId, postId) : undefined;
  if (!row) throw notFound('Post');
  return row;
}

export async function getPost(pool: Pool, caller: Caller, postId: string): Promise<Post> {
  return toPost(await requirePost(pool, caller, postId));
}

type Operation = keyof typeof ALLOWED_FROM;

/**
 * The post, when it can take one more attachment of `kind` at the end of its list: owned,
 * still editable, and on a platform that carries it; refused as update_post would refuse
 * that list. attach_drawing_to_post asks before it draws anything.
 */
export async function postTaking(
  pool: Pool,
  caller: Caller,
  postId: string,
  kind: MediaKind,
): Promise<Post> {
  const post = await getPost(pool, caller, postId);
  const editable: readonly PostStatus[] = ALLOWED_FROM.update;
  if (!editable.includes(post.status))
    throw conflict(
      'invalid_status',
      `Cannot attach media to a ${post.status} post; attachments change on ${editable.join(', ')} posts.`,
      { status: post.status },
    );
  // The new attachment is not made yet: only its kind is known.
  const facts: MediaFacts[] = [
    ...(await attachedMedia(pool, caller.accountId, post.asset_ids)),
    { id: null, kind, mime: '', bytes: null, durationS: null, pixels: null },
  ];
  const media = kindsOf(facts);
  const caps = CAPABILITIES[post.platform];
  const issues = platformFitIssues({
    ...post,
    kind: inferKind(post.platform, media),
    media,
    facts,
  });
  if (issues.length)
    throw invalid(
      ['post_id'],
      `post ${post.id} cannot take one more ${kind}: it has ${post.asset_ids.length} attachment(s), and a ${post.platform} post carries at most ${caps.maxImages} image(s)${caps.maxCarouselItems ? ` (${caps.maxCarouselItems} in a carousel)` : ''}; ${issues.map((i) => i.msg).join('; ')}`,
      'platform_capability',
    );
  return post;
}

/**
 * Adds an owned asset at the end of the post's attachments, as updatePost does (the post
 * returns to draft); an asset it shows already leaves it as it is. The post is locked first,
 * so two attachments at once both land.
 */
export async function attachAsset(
  pool: Pool,
  caller: Caller,
  postId: string,
  assetId: string,
): Promise<Post> {
  return toPost(
    await withTransaction(pool, async (tx) => {
      if (!isId(postId) || !(await lockPost(tx, caller.accountId, postId))) throw notFound('Post');
      const current = await requirePost(tx, caller, postId);
      if (current.asset_ids.includes(assetId)) return current;
      return updateOn(tx, caller, current, { asset_ids: [...current.asset_ids, assetId] });
    }),
  );
}

/** Runs one transition for the caller and turns its outcome into a post or an error. */
async function transition(
  db: Queryable,
  caller: Caller,
  postId: string,
  op: Operation,
  change: Pick<Transition, 'patch' | 'detail'>,
): Promise<PostRow> {
  if (!isId(postId)) throw notFound('Post');
  const result = await transitionPost(db, {
    postId,
    accountId: caller.accountId,
    from: ALLOWED_FROM[op],
    action: op,
    actor: actorOf(caller.credential),
    ...change,
  });
  if (result.outcome === 'not_found') throw notFound('Post');
  if (result.outcome === 'wrong_status')
    throw conflict(
      'invalid_status',
      `Cannot ${op} a ${result.status} post; ${op} works on ${ALLOWED_FROM[op].join(', ')} posts.`,
      { status: result.status },
    );
  return result.post;
}

export async function favoritePost(pool: Pool, caller: Caller, postId: string): Promise<Post> {
  return toPost(
    await transition(pool, caller, postId, 'favorite', {
      patch: { favorited_at: 'now_unless_set' },
    }),
  );
}

export async function unfavoritePost(pool: Pool, caller: Caller, postId: string): Promise<Post> {
  return toPost(
    await transition(pool, caller, postId, 'favorite', {
      patch: { favorited_at: null },
      detail: { starred: false },
    }),
  );
}

export async function approvePost(pool: Pool, caller: Caller, postId: string): Promise<Post> {
  return toPost(
    await transition(pool, caller, postId, 'approve', {
      patch: {
        status: 'approved',
        approved_at: 'now',
        rejection_reason: null,
        rejection_code: null,
      },
    }),
  );
}

export async function rejectPost(
  pool: Pool,
  caller: Caller,
  postId: string,
  input: RejectPostInput,
): Promise<Post> {
  const reason = input.reason || null;
  const code = input.code || null;
  return toPost(
    await withTransaction(pool, async (tx) => {
      const row = await transition(tx, caller, postId, 'reject', {
        patch: {
          status: 'rejected',
          approved_at: null,
          scheduled_for: null,
          rejection_reason: reason,
          rejection_code: code,
        },
        detail: { reason, code },
      });
      await cancelPublication(tx, postId);
      return row;
    }),
  );
}

/** Schedules at `when`, or at the next free slot of the post's brand and platform. */
export async function schedulePost(
  pool: Pool,
  caller: Caller,
  postId: string,
  input: SchedulePostInput,
): Promise<Post> {
  if (input.when) assertFuture(input.when, ['when']);
  return toPost(
    await withTransaction(pool, async (tx) => {
      let at = input.when ?? null;
      if (!at) {
        // Only next-free-slot calls take the lock: an explicit time may be shared on purpose.
        const post = await requirePost(tx, caller, postId);
        await lockSlots(tx, post.brand_id, post.platform);
        at = await nextFreeSlot(tx, post.brand_id, post.platform);
      }
      if (!at)
        throw conflict('no_free_slot', 'Every posting slot of the next year is taken; pass when.');
      const row = await transition(tx, caller, postId, 'schedule', {
        patch: {
          status: 'scheduled',
          scheduled_for: at,
          approved_at: 'now_unless_set',
          rejection_reason: null,
          rejection_code: null,
          error: null,
        },
        detail: { scheduled_for: at, next_free_slot: !input.when },
      });
      // A video design's post shows its design's export of the current layout_version, which
      // an edit of the design takes away: until it is exported again there is nothing to send.
      if (row.design_id && (row.kind === 'video' || row.kind === 'reel') && !row.asset_ids.length)
        throw conflict(
          'not_exported',
          `This post shows video design ${row.design_id}, which has no export of its current layout_version: run export_video, wait for its job (job_status) to succeed, then schedule.`,
        );
      await enqueuePublication(tx, { post_id: postId, scheduled_for: at });
      return row;
    }),
  );
}

/** schedulePost, with the answer's warnings. */
export async function schedulePostWithWarnings(
  pool: Pool,
  caller: Caller,
  postId: string,
  input: SchedulePostInput,
): Promise<WarnedPost> {
  const post = await schedulePost(pool, caller, postId, input);
  const warnings = await connectionWarnings(
    pool,
    caller.accountId,
    post.brand_id,
    post.platform,
    post.scheduled_for,
  );
  return { post, warnings };
}

export async function unschedulePost(pool: Pool, caller: Caller, postId: string): Promise<Post> {
  return toPost(
    await withTransaction(pool, async (tx) => {
      const row = await transition(tx, caller, postId, 'unschedule', {
        patch: { status: 'approved', scheduled_for: null },
      });
      await cancelPublication(tx, postId);
      return row;
    }),
  );
}

/**
 * Edits copy, hashtags, headline, kind or attachments. An edit needs approval again, so the
 * post returns to draft (a scheduled one is unscheduled).
 */
export async function updatePost(
  pool: Pool,
  caller: Caller,
  postId: string,
  input: UpdatePostInput,
): Promise<Post> {
  const current = await requirePost(pool, caller, postId);
  return toPost(await withTransaction(pool, (tx) => updateOn(tx, caller, current, input)));
}

/** updatePost of the post as `current` read it, in the caller's transaction. */
async function updateOn(
  tx: Queryable,
  caller: Caller,
  current: PostRow,
  input: UpdatePostInput,
): Promise<PostRow> {
  const postId = current.id;
  const assetIds = input.asset_ids ?? current.asset_ids;
  // A design's post may list its own design's pages again; the current list stays as it is.
  const facts = await attachedMedia(
    tx,
    caller.accountId,
    assetIds,
    input.asset_ids ? { designId: current.design_id } : undefined,
  );
  const media = kindsOf(facts);
  const next = {
    body: input.body ?? current.body,
    hashtags: input.hashtags === undefined ? current.hashtags : input.hashtags || null,
    headline: input.headline === undefined ? current.headline : input.headline || null,
    kind: input.kind ?? (input.asset_ids ? inferKind(current.platform, media) : current.kind),
  };
  assertFits({ platform: current.platform, ...next, media, facts });
  await transition(tx, caller, postId, 'update', {
    patch: {
      status: 'draft',
      ...next,
      scheduled_for: null,
      approved_at: null,
      rejection_reason: null,
      rejection_code: null,
    },
    detail: {
      fields: Object.keys(input).filter((k) => input[k as keyof UpdatePostInput] !== undefined),
    },
  });
  if (input.asset_ids) await setPostAssets(tx, postId, assetIds);
  await cancelPublication(tx, postId);
  return requirePost(tx, caller, postId);
}

/** How many of the account's posts are in each status (statuses with none left out). */
export async function postCountsByStatus(
  db: Queryable,
  accountId: string,
): Promise<Partial<Record<PostStatus, number>>> {
  return countByStatus(db, accountId);
}

/** A draft a job wrote (generation, draft_week), with where it came from. */
export type JobDraft = {
  platform: Platform;
  kind: Kind;
  body: string;
  hashtags: string | null;
  headline: string | null;
  sourceId: string | null;
  /** The slot draft_week suggests for it. */
  suggestedFor?: string;
};

/**
 * Creates a job's drafts in its transaction (they commit with the job's success), each
 * checked against its platform as createPost checks a post, with its `create` audit row and
 * its origin. Answers their ids in order. Not found: the brand is not the account's (thrown,
 * so the drafts already inserted roll back with the transaction).
 */
export async function createJobDrafts(
  tx: Queryable,
  owner: { accountId: string; brandId: string; actor: Actor },
  drafts: JobDraft[],
): Promise<string[]> {
  for (const d of drafts)
    assertFits({
      platform: d.platform,
      kind: d.kind,
      body: d.body,
      hashtags: d.hashtags,
      media: [],
    });
  const postIds: string[] = [];
  for (const d of drafts) {
    const post = await insertPost(
      tx,
      {
        ...owner,
        platform: d.platform,
        kind: d.kind,
        body: d.body,
        hashtags: d.hashtags,
        scheduleAt: null,
      },
      owner.actor,
    );
    if (!post) throw notFound('Brand');
    await setPostOrigin(tx, post.id, {
      sourceId: d.sourceId,
      headline: d.headline,
      suggestedFor: d.suggestedFor,
    });
    postIds.push(post.id);
  }
  return postIds;
}

export type { PublicationDeps } from './publication.ts';
export { failAbandonedPublications, publishScheduledPost } from './publication.ts';
export { QueueSummary, queueSummary } from './queue.ts';
export { freeSlotsOfWeek, lockSlots, nextMonday } from './slots.ts';
export { connectionWarnings } from './warnings.ts';
