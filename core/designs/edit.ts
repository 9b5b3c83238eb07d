// Design edits (SPEC.md "Native layout rules" 5-6): PATCH /v1/posts/{id}/design, MCP
// design_post and edit_layers. Every edit locks the design, refuses a stale layout_version
// (409, nothing changes), saves the whole new layout and queues its render in one
// transaction; the shared design changes for every unpublished linked post, published ones
// keep what they showed, and `only_this_post` first gives the post its own copy.

import { handOverPagesShownBy } from '../assets/service.ts';
import { type Queryable, withTransaction } from '../db/pool.ts';
import { enqueueRender } from '../jobs/tasks.ts';
import { conflict, invalid, notFound, versionConflict } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import type { DesignPostRow } from '../posts/schema.ts';
import {
  designOfPost,
  designShownByOtherPosts,
  detachDesignPages,
  lockPostForDesign,
  movePostsToDesignCopy,
  publishedPostsShowing,
  refitPostKind,
  showDesignOnPost,
  unpublishedPostsShowing,
} from '../posts/service.ts';
import { type DesignRow, forgetRender, lockDesign, makeDesign, saveLayout } from './db.ts';
import { applyLayerOps } from './layerOps.ts';
import type { Layout } from './layout.ts';
import type { DesignEditInput, DesignRef, DesignState, EditLayersInput } from './schema.ts';
import {
  checkedLayout,
  copySlots,
  currentSlots,
  type DesignCaller,
  type DesignDeps,
  designFit,
  designState,
  renderAndWait,
  templateFill,
  templateFor,
  templateLayout,
} from './service.ts';
import { TEMPLATES } from './templates.ts';
import { applyVideoLayerOps, checkedVideoLayout } from './videoDesigns.ts';
import { isVideoLayout, type VideoLayout } from './videoLayout.ts';

/** The new layout for a locked design, or undefined to render the current one again. */
type LayoutChange = (
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
    const post = await lockPostForDesign(db, caller.accountId, postId);
    if (!post || !design) throw notFound('Post');
    // Moved to another design (only_this_post) in between: lock that one instead.
    if (post.design_id !== design.id) continue;
    if (post.status === 'published' || post.status === 'publishing')
      throw conflict('invalid_status', `A ${post.status} post's design cannot change.`, {
        status: post.status,
      });
    return { post, design };
  }
}

/**
 * Every unpublished post showing the design must be able to show the new layout; each takes
 * the kind its platform gives that many pages (image or carousel).
 */
async function refitLinkedPosts(db: Queryable, designId: string, layout: Layout) {
  const posts = (await unpublishedPostsShowing(db, designId)).map((p) => ({
    ...p,
    ...designFit(p.platform, layout),
  }));
  const refused = posts.filter((p) => p.issues.length);
  if (refused.length)
    throw invalid(
      ['layout'],
      refused.map((p) => `post ${p.id}: ${p.issues[0]!.msg}`).join('; ') +
        '; change the layout or edit with only_this_post',
    );
  for (const p of posts) await refitPostKind(db, p.id, p.kind);
}

/**
 * Published (and publishing) posts never change: before their design is edited they move to a
 * frozen copy of it, taking the rendered pages they show with them. The caller holds the
 * design's lock: no post is linked to it or moved off it meanwhile. The copy counts among the
 * account's designs but is never refused at the plan's limit (makeDesign).
 */
async function freezePublishedPosts(
  db: Queryable,
  caller: DesignCaller,
  designId: string,
): Promise<void> {
  const postIds = await publishedPostsShowing(db, designId);
  if (!postIds.length) return;
  const frozen = await makeDesign(db, caller, { from: 'frozen copy', designId });
  await movePostsToDesignCopy(db, postIds, designId, frozen.id);
  await handOverPagesShownBy(db, designId, frozen.id, postIds);
}

async function changeDesign(
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
        await showDesignOnPost(tx, post.id, target.id);
      }
      const next = await opts.change(tx, target, post);
      // Re-rendering replaces the design's pages: published posts keep theirs on a frozen copy.
      await freezePublishedPosts(tx, caller, target.id);
      // A video design has no pages to render (export_video makes its file); its posts stay
      // video posts.
      const video = isVideoLayout(target.layout);
      if (!next) {
        if (video) return target;
        await forgetRender(tx, target.id);
        await enqueueRender(tx, target);
        return target;
      }
      if (!video) await refitLinkedPosts(tx, target.id, next.layout);
      const row = await saveLayout(tx, target.id, next);
      if (!video) await enqueueRender(tx, row);
      // The export shows the old layout: its posts show nothing until the next export.
      else await detachDesignPages(tx, row.id);
      return row;
    }),
  }));
  return designState(deps, saved, ref.post_id ?? null, pages);
}

/**
 * PATCH /v1/posts/{id}/design and MCP design_post: a whole new layout, or a template laid out
 * anew (its slots filled from the post copy), or nothing: the current layout rendered again.
 */
export async function editDesign(
  deps: DesignDeps,
  caller: DesignCaller,
  ref: DesignRef,
  input: DesignEditInput,
  loc: (string | number)[] = ['body'],
): Promise<DesignState> {
  const template =
    input.template === undefined
      ? undefined
      : templateFor(caller, input.template, [...loc, 'template']);
  const hasLayers =
    input.layout?.layers !== undefined ||
    (input.layout !== undefined && 'pages' in input.layout && input.layout.pages !== undefined);
  return changeDesign(deps, caller, ref, {
    layoutVersion: input.layout_version,
    onlyThisPost: input.only_this_post,
    change: async (db, design, post) => {
      const video = isVideoLayout(design.layout);
      if (input.layout && isVideoLayout(input.layout) !== video)
        throw invalid(
          [...loc, 'layout', 'canvas'],
          video
            ? 'this is a video design: give a video layout (canvas.type "video")'
            : 'this is a Canvas design: a video layout needs a video design (use_video_template)',
        );
      if (video) {
        if (template)
          throw conflict(
            'video_design',
            'This is a video design: Canvas templates cannot lay it out; give a whole video layout, or start from use_video_template.',
          );
        if (!input.layout) return undefined;
        const layout = await checkedVideoLayout(db, caller.accountId, input.layout as VideoLayout, [
          ...loc,
          'layout',
        ]);
        return { layout: layout as unknown as Layout, template: design.template };
      }
      // A layout with a canvas and no layers lays the design's own template out again on it
      // (as on creation), unless the design has none from today's catalogue.
      const relay =
        template ?? (input.layout && !hasLayers ? TEMPLATES.get(design.template) : undefined);
      if (input.slots !== undefined && (!relay || hasLayers))
        throw invalid(
          [...loc, 'slots'],
          'slots fill a template: give template (and no layout layers) with them',
        );
      if (!input.layout && !relay) return undefined;
      // A re-lay keeps the design's content: the request's slots first, then what the
      // design's slots hold now, then the post's copy.
      const given =
        relay && !hasLayers
          ? await templateLayout(
              db,
              caller.accountId,
              design.brand_id,
              relay,
              input.layout?.canvas.aspect ?? design.layout.canvas.aspect,
              templateFill(
                relay,
                input.slots,
                [...loc, 'slots'],
                currentSlots(design),
                ...(post ? [copySlots(relay, post.body, [...loc, 'template'])] : []),
              ),
              [...loc, 'slots'],
            )
          : (input.layout as Layout);
      const layout = await checkedLayout(db, caller.accountId, given, [...loc, 'layout']);
      return { layout, template: relay?.name ?? design.template };
    },
  });
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
