// What a design asks of the posts that show it, with the rules of that link kept here: a
// published (or publishing) post never changes, so an edit refuses it or moves it to a frozen
// copy, and only the unpublished posts take a new layout's kind and pages. Each runs in the
// design's transaction, under its lock, so a render or an edit and the posts it changes commit
// together. posts/service.ts re-exports these: it stays the post state machine.
import { handOverPagesShownBy } from '../assets/service.ts';
import type { Actor } from '../audit/schema.ts';
import type { Queryable } from '../db/pool.ts';
import { conflict, invalid, notFound } from '../kernel/errors.ts';
import type { Kind, Platform } from '../kernel/platforms.ts';
import {
  attachToUnpublishedPostsOf,
  designIdOfPost,
  designShownByOthers,
  detachFromUnpublishedPostsOf,
  insertPost,
  lockPost,
  movePostsToDesign,
  publishedPostsOf,
  setPostAssets,
  setPostDesign,
  setPostKind,
  unpublishedPostsOf,
} from './db.ts';
import type { DesignPostRow, Post } from './schema.ts';
import { toPost } from './view.ts';

/**
 * Creates a post showing a design, its rendered pages (`pageIds`, when it has any) attached
 * in order. The design's caller has checked the post's copy against the layout and its time.
 * Not found: the brand is not the account's.
 */
export async function createPostOfDesign(
  tx: Queryable,
  owner: { accountId: string; brandId: string; actor: Actor },
  post: {
    platform: Platform;
    kind: Kind;
    body: string;
    hashtags: string | null;
    scheduleAt: string | null;
  },
  design: { id: string; pageIds?: string[] },
): Promise<Post> {
  const row = await insertPost(tx, { ...owner, ...post }, owner.actor);
  if (!row) throw notFound('Brand');
  await setPostDesign(tx, row.id, design.id);
  if (design.pageIds) await setPostAssets(tx, row.id, design.pageIds);
  return toPost({ ...row, design_id: design.id, asset_ids: design.pageIds ?? row.asset_ids });
}

/** The design a post of the account shows, if the post exists (no lock: for reads). */
export async function designOfPost(
  db: Queryable,
  accountId: string,
  postId: string,
): Promise<{ design_id: string | null } | undefined> {
  return designIdOfPost(db, accountId, postId);
}

/** Refuses a post whose design may no longer change: it is published or being published. */
function assertEditable(post: DesignPostRow): void {
  if (post.status === 'published' || post.status === 'publishing')
    throw conflict('invalid_status', `A ${post.status} post's design cannot change.`, {
      status: post.status,
    });
}

/**
 * The account's post, locked for an edit of the design it shows (`designId`, which the caller
 * has locked first: the order every writer of a design's posts follows). Undefined when the
 * post has moved to another design meanwhile (the caller locks that one instead). Refuses a
 * published or publishing post. Not found: no such post of the account.
 */
export async function lockEditablePost(
  tx: Queryable,
  caller: { accountId: string },
  postId: string,
  designId: string,
): Promise<DesignPostRow | undefined> {
  const post = await lockPost(tx, caller.accountId, postId);
  if (!post) throw notFound('Post');
  if (post.design_id !== designId) return undefined;
  assertEditable(post);
  return post;
}

/** The posts that show this design and may still change, in id order. */
export async function unpublishedPostsShowing(
  db: Queryable,
  designId: string,
): Promise<{ id: string; platform: Platform }[]> {
  return unpublishedPostsOf(db, designId);
}

/** Whether a post other than `postId` shows the design (published ones included). */
export async function designShownByOtherPosts(
  db: Queryable,
  designId: string,
  postId: string,
): Promise<boolean> {
  return designShownByOthers(db, designId, postId);
}

/**
 * Points a post that lockEditablePost gave (its own copy of the design it showed) at another
 * design; a post that may no longer change is refused.
 */
export async function showDesignOnPost(
  tx: Queryable,
  post: DesignPostRow,
  designId: string,
): Promise<void> {
  assertEditable(post);
  await setPostDesign(tx, post.id, designId);
}

/**
 * Every unpublished post showing the design must be able to show the new layout (`fitFor` says
 * what its platform makes of it); each then takes the kind its platform gives that many pages
 * (image or carousel). Refused, with every post that cannot, before any changes.
 */
export async function refitPostsToLayout(
  tx: Queryable,
  designId: string,
  fitFor: (platform: Platform) => { kind: Kind; issues: { msg: string }[] },
): Promise<void> {
  const posts = (await unpublishedPostsOf(tx, designId)).map((p) => ({
    ...p,
    ...fitFor(p.platform),
  }));
  const refused = posts.filter((p) => p.issues.length);
  if (refused.length)
    throw invalid(
      ['layout'],
      refused.map((p) => `post ${p.id}: ${p.issues[0]!.msg}`).join('; ') +
        '; change the layout or edit with only_this_post',
    );
  for (const p of posts) await setPostKind(tx, p.id, p.kind);
}

/**
 * Published (and publishing) posts never change: before the design they show is edited they
 * move to a frozen copy of it (`makeCopy`, called only when there are such posts), taking the
 * rendered pages they show with them. The caller holds the design's lock: no post is linked to
 * it or moved off it meanwhile.
 */
export async function freezePublishedPostsOf(
  tx: Queryable,
  designId: string,
  makeCopy: () => Promise<string>,
): Promise<void> {
  const postIds = await publishedPostsOf(tx, designId);
  if (!postIds.length) return;
  const copyId = await makeCopy();
  await movePostsToDesign(tx, postIds, designId, copyId);
  await handOverPagesShownBy(tx, designId, copyId, postIds);
}

/** Attaches a design's new pages, in order, to each unpublished post showing it. */
export async function attachDesignPages(
  db: Queryable,
  designId: string,
  pageIds: string[],
): Promise<void> {
  await attachToUnpublishedPostsOf(db, designId, pageIds);
}

/**
 * Detaches every attachment of the design's unpublished posts, before a render files its new
 * pages (or an export its new file), so the old pages no post shows any more can go.
 */
export async function detachDesignPages(db: Queryable, designId: string): Promise<void> {
  await detachFromUnpublishedPostsOf(db, designId);
}
