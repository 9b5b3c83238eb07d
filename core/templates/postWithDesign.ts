// POST /v1/posts with `layout`, `template` or `design_id` (SPEC.md "Native layout rules" 1-4).
// A layout or template gives the new draft a design of its own and a render job in the same
// transaction; `design_id` links the post to a shared design and shows its rendered pages.
// The API then waits, bounded, for the render and answers the pages or why they are missing.
import { actorOf } from '../audit/schema.ts';
import { requireBrandFor } from '../brands/service.ts';
import { type Queryable, withTransaction } from '../db/pool.ts';
import type { DesignCaller, DesignRow, Layout } from '../designs/schema.ts';
import {
  checkedLayout,
  type DesignDeps,
  designFit,
  holdDesign,
  pagePaths,
  renderAndWait,
  renderedPages,
  storeDesign,
} from '../designs/service.ts';
import { enqueuePublication, enqueueRender } from '../jobs/tasks.ts';
import { invalid, notFound, ValidationFailed, type ValidationIssue } from '../kernel/errors.ts';
import { CAPABILITIES, type Kind } from '../kernel/platforms.ts';
import type { Post, PostReceipt } from '../posts/schema.ts';
import { connectionWarnings, createPostOfDesign } from '../posts/service.ts';
import { copySlots, templateFill, templateFor, templateLayout } from './fill.ts';
import type { NativePostInput, NativePostReceipt } from './schema.ts';

/** A post's receipt members only (a plain post's answer to POST /v1/posts). */
export const receiptOf = (post: PostReceipt): PostReceipt => ({
  id: post.id,
  uuid: post.uuid,
  platform: post.platform,
  kind: post.kind,
  status: post.status,
  body: post.body,
  hashtags: post.hashtags,
  scheduled_for: post.scheduled_for,
  brand_id: post.brand_id,
  asset_ids: post.asset_ids,
  created_at: post.created_at,
});

export const isNativePost = (input: NativePostInput) =>
  input.layout !== undefined ||
  input.template !== undefined ||
  input.design_id !== undefined ||
  input.slots !== undefined;

/** Rules 2 and 4: what must be omitted, and the brand and an image-capable platform. */
function refusals(input: NativePostInput): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const refuse = (field: string, msg: string) =>
    issues.push({ loc: ['body', field], msg, type: 'native_layout' });
  if (input.design_id !== undefined) {
    for (const f of ['layout', 'template', 'slots', 'asset_ids'] as const)
      if (input[f] !== undefined) refuse(f, 'must be omitted with design_id');
  } else {
    for (const f of ['asset_ids', 'schedule_at'] as const)
      if (input[f] !== undefined) refuse(f, 'must be omitted with a native layout');
    if (input.slots !== undefined && input.template === undefined)
      refuse('slots', 'slots fill a template: give template too (list_design_templates)');
  }
  if (input.brand_id === undefined)
    refuse('brand_id', 'give the brand explicitly with a native layout or design_id');
  if (!CAPABILITIES[input.platform].kinds.includes('image'))
    refuse('platform', `${input.platform} does not take image posts`);
  return issues;
}

/** The copy must still fit the platform with the design's pages attached. */
function assertCopyFits(input: NativePostInput, layout: Layout) {
  const { kind, issues } = designFit(input.platform, layout, {
    body: input.body,
    hashtags: input.hashtags || null,
  });
  if (issues.length) throw new ValidationFailed(issues);
  return kind;
}

/** A post showing a new or an existing design; answers once its pages rendered (bounded). */
export async function createNativePost(
  deps: DesignDeps,
  caller: DesignCaller,
  input: NativePostInput,
): Promise<NativePostReceipt & { warnings?: string[] }> {
  const { post, design, pageIds, error, warnings } = await renderAndWait(
    deps,
    caller.accountId,
    () => storeNativePost(deps, caller, input),
  );
  const connection = await connectionWarnings(
    deps.pool,
    caller.accountId,
    post.brand_id,
    post.platform,
    post.scheduled_for,
  );
  return {
    ...post,
    asset_ids: pageIds,
    design_id: design.id,
    layout_version: design.layout_version,
    media_paths: pagePaths(deps, pageIds),
    render_error: error,
    render_warnings: warnings,
    ...(connection.length ? { warnings: connection } : {}),
  };
}

/** The post (and a new design, unless it links one) checked and stored, the render queued. */
async function storeNativePost(
  deps: DesignDeps,
  caller: DesignCaller,
  input: NativePostInput,
): Promise<{ post: Post; design: DesignRow }> {
  const issues = refusals(input);
  if (issues.length) throw new ValidationFailed(issues);
  // Checked before anything is written: a new design's foreign key would refuse a missing brand
  // with an internal error, and accept another account's.
  const brandId = (await requireBrandFor(deps.pool, caller, input.brand_id)).id;
  const owner = { accountId: caller.accountId, brandId, actor: actorOf(caller.credential) };
  const newPost = (kind: Kind, scheduleAt: string | null) => ({
    platform: input.platform,
    kind,
    body: input.body,
    hashtags: input.hashtags || null,
    scheduleAt,
  });
  // The post is pointed at the design and shows its rendered pages, in order.
  const pagesOf = async (db: Queryable, designId: string) => ({
    id: designId,
    pageIds: await renderedPages(db, designId),
  });

  let created: { post: Post; design: DesignRow };
  if (input.design_id !== undefined) {
    const designId = input.design_id;
    created = await withTransaction(deps.pool, async (tx) => {
      // `share` holds off a render replacing the pages until this post is linked to them.
      const design = await holdDesign(tx, caller.accountId, designId);
      if (!design) throw notFound('Design');
      if (design.brand_id !== brandId)
        throw invalid(['body', 'design_id'], `design ${designId} belongs to another brand`);
      const kind = assertCopyFits(input, design.layout);
      const scheduleAt = input.schedule_at ?? null;
      if (scheduleAt && design.rendered_version !== design.layout_version)
        throw invalid(
          ['body', 'schedule_at'],
          'the design has no rendered pages for its current layout yet; schedule it once it renders',
        );
      if (scheduleAt && Date.parse(scheduleAt) <= Date.now())
        throw invalid(['body', 'schedule_at'], 'must be in the future');
      const post = await createPostOfDesign(
        tx,
        owner,
        newPost(kind, scheduleAt),
        await pagesOf(tx, design.id),
      );
      if (scheduleAt) await enqueuePublication(tx, { post_id: post.id, scheduled_for: scheduleAt });
      return { post, design };
    });
  } else {
    const template = templateFor(caller, input.template, ['body', 'template']);
    const given = input.layout;
    const fromTemplate = given?.layers === undefined && given?.pages === undefined;
    if (!fromTemplate && input.slots !== undefined)
      throw invalid(['body', 'slots'], 'slots fill a template: omit layout.layers, or omit slots');
    const base = fromTemplate
      ? await templateLayout(
          deps.pool,
          caller.accountId,
          brandId,
          template,
          given?.canvas.aspect,
          templateFill(
            template,
            input.slots,
            ['body', 'slots'],
            copySlots(template, input.body, ['body', 'body']),
          ),
          ['body', 'slots'],
        )
      : given;
    const layout = await checkedLayout(deps.pool, caller.accountId, base, ['body', 'layout']);
    const kind = assertCopyFits(input, layout);
    created = await withTransaction(deps.pool, async (tx) => {
      const design = await storeDesign(tx, caller, {
        from: 'layout',
        brandId,
        template: template.name,
        layout,
      });
      const post = await createPostOfDesign(
        tx,
        owner,
        newPost(kind, null),
        await pagesOf(tx, design.id),
      );
      await enqueueRender(tx, design);
      return { post, design };
    });
  }
  return created;
}
