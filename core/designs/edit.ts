// Design edits (SPEC.md "Native layout rules" 5-6): changeDesign, which every edit goes
// through, edit_layers' ops, and a whole new layout checked (wholeLayout; PATCH
// /v1/posts/{id}/design and MCP design_post reach it through
// core/templates/relayoutFromTemplate.ts, as they also lay templates out). Every edit locks the design,
// refuses a stale layout_version (409, nothing changes), saves the whole new layout and queues
// its render in one transaction; the shared design changes for every unpublished linked post,
// published ones keep what they showed, and `only_this_post` first gives the post its own copy.

import { type Queryable, withTransaction } from '../db/pool.ts';
import { enqueueRender } from '../jobs/tasks.ts';
import { conflict, invalid, notFound, versionConflict } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import type { DesignPostRow } from '../posts/schema.ts';
import {
  designOfPost,
  designShownByOtherPosts,
  detachDesignPages,
  freezePublishedPostsOf,
  lockEditablePost,
  refitPostsToLayout,
  showDesignOnPost,
} from '../posts/service.ts';
import { checkedLayout, checkedVideoLayout } from './checkedLayout.ts';
import { forgetRender, lockDesign, makeDesign, saveLayout } from './db.ts';
import { designFit, designState } from './designState.ts';
import { applyLayerOps, applyVideoLayerOps } from './layerOps.ts';
import type { Layout } from './layout.ts';
import { type DesignDeps, renderAndWait } from './renderWaits.ts';
import type {
  DesignCaller,
  DesignRef,
  DesignRow,
  DesignState,
  EditLayersInput,
  VideoLayout,
} from './schema.ts';
import { isVideoLayout } from './videoLayout.ts';

/** The new layout for a locked design, or undefined to render the current one again. */
export type LayoutChange = (
  db: Queryable,
  design: DesignRow,
  post: DesignPostRow | undefined,
) => Promise<{ layout: Layout; template: string } | undefined>;

/**
 * The design a post shows or a design named directly, both locked for the edit: the design
 * first, then the post, the order every writer of a design's posts follows (no deadlock).
 */
async function lockTarget(db: Queryable, caller: DesignCaller, ref: DesignRef) {
  if (ref.post_id === undefined) {
    const design = isId(ref.design_id!)
      ? await lockDesign(db, caller.accountId, ref.design_id!, 'update')
      : undefined;
    if (!design) throw notFound('Design');
    return { post: undefined, design };
  }
  const postId = ref.post_id;
  for (;;) {
    const seen = isId(postId) ? await designOfPost(db, caller.accountId, postId) : undefined;
    if (!seen) throw notFound('Post');
    if (!seen.design_id)
      throw conflict(
        'no_design',
        'This post has no native design; create one with POST /v1/posts and a layout, or link one with design_id.',
      );
    const design = await lockDesign(db, caller.accountId, seen.design_id, 'update');
    if (!design) throw notFound('Post');
    // Moved to another design (only_this_post) in between: lock that one instead.
    const post = await lockEditablePost(db, caller, postId, design.id);
    if (!post) continue;
    return { post, design };
  }
}

/**
 * The one way a design's layout changes: the target locked (the design, then its post), the
 * version checked, `only_this_post` honoured, published posts frozen, the change saved and
 * its render queued in one transaction, then the render waited for (bounded).
 */
export async function changeDesign(
  deps: DesignDeps,
  caller: DesignCaller,
  ref: DesignRef,
  opts: { layoutVersion?: number; onlyThisPost: boolean; change: LayoutChange },
): Promise<DesignState> {
  const { design: saved, ...pages } = await renderAndWait(deps, caller.accountId, async () => ({
    design: await withTransaction(deps.pool, async (tx) => {
      const { post, design } = await lockTarget(tx, caller, ref);
      if (opts.layoutVersion !== undefined && opts.layoutVersion !== design.layout_version)
        throw versionConflict(design.layout_version);
      let target = design;
      if (opts.onlyThisPost && post && (await designShownByOtherPosts(tx, design.id, post.id))) {
        // The post keeps showing the shared pages until its own copy has rendered.
        target = await makeDesign(tx, caller, { from: 'copy', designId: design.id });
        await showDesignOnPost(tx, post, target.id);
      }
      const next = await opts.change(tx, target, post);
      // Re-rendering replaces the design's pages: published posts keep theirs on a frozen copy,
      // which counts among the account's designs but is never refused at the plan's limit.
      await freezePublishedPostsOf(
        tx,
        target.id,
        async () => (await makeDesign(tx, caller, { from: 'frozen copy', designId: target.id })).id,
      );
      // A video design has no pages to render (export_video makes its file); its posts stay
      // video posts.
      const video = isVideoLayout(target.layout);
      if (!next) {
        if (video) return target;
        await forgetRender(tx, target.id);
        await enqueueRender(tx, target);
        return target;
      }
      // Every unpublished post showing it must be able to show the new layout.
      if (!video)
        await refitPostsToLayout(tx, target.id, (platform) => designFit(platform, next.layout));
      const row = await saveLayout(tx, target.id, next);
      if (!video) await enqueueRender(tx, row);
      // The export shows the old layout: its posts show nothing until the next export.
      else await detachDesignPages(tx, row.id);
      return row;
    }),
  }));
  return designState(deps, saved, ref.post_id ?? null, pages);
}

/** MCP edit_layers: ops applied in order to the current layout, all or nothing. */
export async function editLayers(
  deps: DesignDeps,
  caller: DesignCaller,
  input: EditLayersInput,
): Promise<DesignState> {
  return changeDesign(
    deps,
    caller,
    { post_id: input.post_id, design_id: input.design_id },
    {
      layoutVersion: input.layout_version,
      onlyThisPost: input.only_this_post,
      change: async (db, design) => {
        if (isVideoLayout(design.layout)) {
          const edited = applyVideoLayerOps(design.layout, input.ops);
          const layout = await checkedVideoLayout(db, caller.accountId, edited, ['layout']);
          return { layout: layout as unknown as Layout, template: design.template };
        }
        const edited = applyLayerOps(design.layout, input.ops);
        const layout = await checkedLayout(db, caller.accountId, edited, ['layout']);
        return { layout, template: design.template };
      },
    },
  );
}

/**
 * Refuses a whole layout of the other kind than the design's: a Canvas design takes a Canvas
 * layout, a video design a video timeline. `loc` is where the layout was given.
 */
export function refuseOtherKind(
  design: DesignRow,
  layout: Layout | VideoLayout,
  loc: (string | number)[],
): void {
  const video = isVideoLayout(design.layout);
  if (isVideoLayout(layout) !== video)
    throw invalid(
      [...loc, 'canvas'],
      video
        ? 'this is a video design: give a video layout (canvas.type "video")'
        : 'this is a Canvas design: a video layout needs a video design (use_video_template)',
    );
}

/**
 * A design's whole new layout (a replacement, never a merge), checked as an edit's result is:
 * of the design's kind, its assets the account's, within the bounds of its kind.
 */
export async function wholeLayout(
  db: Queryable,
  accountId: string,
  design: DesignRow,
  layout: Layout | VideoLayout,
  loc: (string | number)[],
): Promise<Layout> {
  refuseOtherKind(design, layout, loc);
  if (isVideoLayout(layout))
    return (await checkedVideoLayout(db, accountId, layout, loc)) as unknown as Layout;
  return checkedLayout(db, accountId, layout, loc);
}
