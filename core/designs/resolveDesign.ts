// Finding the caller's design: named directly or through a post that shows it.
import type { Queryable } from '../db/pool.ts';
import { conflict, notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import { designOfPost } from '../posts/service.ts';
import { findDesign } from './db.ts';
import type { DesignCaller, DesignRef, DesignRow } from './schema.ts';

/** The account's design, named directly or through a post that shows it. */
export async function resolveDesign(
  db: Queryable,
  caller: DesignCaller,
  ref: DesignRef,
): Promise<DesignRow> {
  let designId = ref.design_id;
  if (ref.post_id !== undefined) {
    const post = isId(ref.post_id)
      ? await designOfPost(db, caller.accountId, ref.post_id)
      : undefined;
    if (!post) throw notFound('Post');
    if (!post.design_id) throw conflict('no_design', 'This post has no native design.');
    designId = post.design_id;
  }
  const design =
    designId && isId(designId) ? await findDesign(db, caller.accountId, designId) : undefined;
  if (!design) throw notFound('Design');
  return design;
}

/** MCP get_post's layout part: the design the post shows, if any. */
export async function layoutOfPost(db: Queryable, caller: DesignCaller, designId: string | null) {
  if (!designId) return { layout: null, layout_version: null };
  const design = await findDesign(db, caller.accountId, designId);
  return { layout: design?.layout ?? null, layout_version: design?.layout_version ?? null };
}
