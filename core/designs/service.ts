// What every design operation shares: checking a layout beyond its schema, choosing a
// template (premium ones need the pro plan), queueing a render in the caller's transaction and
// waiting for it, bounded, and answering the design's state with its rendered pages.

import { planAtLeast } from '../accounts/plans.ts';
import { assetContentUrl } from '../assets/service.ts';
import type { Principal } from '../auth/principal.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import {
  conflict,
  DomainError,
  invalid,
  notFound,
  ValidationFailed,
  type ValidationIssue,
} from '../errors.ts';
import { isId } from '../ids.ts';
import type { Platform } from '../platforms/capabilities.ts';
import { designIdOfPost, unpublishedPostsOf } from '../posts/db.ts';
import { inferKind, platformFitIssues } from '../posts/platformFit.ts';
import { type DesignRow, findDesign, renderedPages } from './db.ts';
import { assetIssues, type PlacedLayer, textIssues, type WantedAsset } from './layerChecks.ts';
import { type Aspect, assignCids, Layout, MAX_TEXT_PER_LAYER, pagesOf } from './layout.ts';
import { type RenderWaits, waitForRender, withRenderSlot } from './renderWaits.ts';
import type { DesignRef, DesignState } from './schema.ts';
import { layoutFromTemplate, slotsOf, TEMPLATES, type Template } from './templates.ts';
import { isVideoLayout } from './videoLayout.ts';

/** Who calls a design operation: a post caller plus the plan (premium templates). */
export type DesignCaller = Pick<Principal, 'accountId' | 'selectedBrandId' | 'credential' | 'plan'>;

export type DesignDeps = {
  pool: Pool;
  publicBaseUrl: string;
  /** The process's render waits (one LISTEN connection, a bound per account). */
  renders: RenderWaits;
  renderWaitMs?: number;
};

/** The account's design, named directly or through a post that shows it. */
export async function resolveDesign(
  db: Queryable,
  caller: DesignCaller,
  ref: DesignRef,
): Promise<DesignRow> {
  let designId = ref.design_id;
  if (ref.post_id !== undefined) {
    const post = isId(ref.post_id)
      ? await designIdOfPost(db, caller.accountId, ref.post_id)
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

/** How long the API waits for a render before answering with `render_error`. */
export const RENDER_WAIT_MS = 15_000;

export const PREMIUM_TEMPLATE_PLAN = 'pro' as const;

/** The named template, refused when unknown or premium above the caller's plan. */
export function templateFor(
  caller: DesignCaller,
  name: string | undefined,
  loc: (string | number)[],
): Template {
  const template = TEMPLATES.get(name ?? 'blank');
  if (!template) throw invalid(loc, `unknown template "${name}"; list_design_templates lists them`);
  if (template.premium && !planAtLeast(caller.plan, PREMIUM_TEMPLATE_PLAN))
    throw new DomainError(
      403,
      'plan_required',
      `Template "${template.name}" is premium: it needs the ${PREMIUM_TEMPLATE_PLAN} plan or higher.`,
    );
  return template;
}

/** The post copy fills a template: its first line the headline, the rest the body. */
export function slotsFrom(body: string) {
  const [headline = '', ...rest] = body.trim().split('\n');
  return { headline: headline.trim(), body: rest.join('\n').trim() };
}

const grouped = (n: number) => n.toLocaleString('en-US');

/**
 * The template's layout with its slots filled from a post's copy; copy longer than a text
 * layer takes is refused at `loc` (never cut).
 */
export function filledTemplate(
  template: Template,
  aspect: Aspect | undefined,
  fill: Record<string, string>,
  loc: (string | number)[],
): Layout {
  for (const slot of slotsOf(template)) {
    const text = fill[slot] ?? '';
    if (text.length > MAX_TEXT_PER_LAYER)
      throw invalid(
        loc,
        `the copy's ${slot} (${grouped(text.length)} characters) is longer than a template's text slot takes (at most ${grouped(MAX_TEXT_PER_LAYER)}): shorten it, or give a layout of your own`,
        'too_long',
      );
  }
  return Layout.parse(layoutFromTemplate(template, aspect, fill));
}

/**
 * Checks what the schema cannot (fonts, drawings, owned images, the layout's total text) and
 * gives layers cids.
 */
export async function checkedLayout(
  db: Queryable,
  accountId: string,
  given: Layout,
  loc: (string | number)[],
): Promise<Layout> {
  const { layout, duplicates } = assignCids(given);
  if (duplicates.length)
    throw invalid(loc, `layer cids must be unique; repeated: ${duplicates.join(', ')}`);
  const placed: PlacedLayer[] = [];
  const images: WantedAsset[] = [];
  const issues: ValidationIssue[] = [];
  for (const [p, page] of pagesOf(layout).entries())
    for (const [i, layer] of page.layers.entries()) {
      const at = [...loc, ...(layout.pages ? ['pages', p] : []), 'layers', i];
      placed.push({ layer, at });
      if (layer.kind === 'drawing')
        issues.push({
          loc: at,
          msg: 'drawing layers are not available yet',
          type: 'not_available',
        });
      if (layer.kind === 'image')
        images.push({ id: layer.asset_id, kind: 'image', loc: [...at, 'asset_id'] });
    }
  issues.unshift(...textIssues(placed, 'a layout', 'all pages together'));
  issues.push(...(await assetIssues(db, accountId, images)));
  if (issues.length) throw new ValidationFailed(issues);
  return layout;
}

/**
 * The kind a post on `platform` gets when it shows `layout` (an image post while the platform
 * takes that many images on one post, else a carousel), and why it cannot, if it cannot.
 */
export function designFit(
  platform: Platform,
  layout: Layout,
  copy: { body: string; hashtags: string | null } = { body: '', hashtags: null },
) {
  const media = pagesOf(layout).map(() => 'image' as const);
  const kind = inferKind(platform, media);
  const issues = platformFitIssues({ platform, kind, ...copy, media }).map((i) =>
    i.loc[1] === 'asset_ids' || i.loc[1] === 'kind' ? { ...i, loc: ['body', 'layout'] } : i,
  );
  return { kind, issues };
}

export const pagePaths = (deps: Pick<DesignDeps, 'publicBaseUrl'>, ids: string[]) =>
  ids.map((id) => assetContentUrl(deps.publicBaseUrl, id));

/** A render's outcome as an operation answers it: its page assets, or why there are none. */
export type RenderedPages = { pageIds: string[]; error: string | null };

/** Waits for the design's current render and answers its page assets, or why there are none. */
async function awaitPages(
  deps: DesignDeps,
  design: Pick<DesignRow, 'id' | 'layout_version'>,
): Promise<RenderedPages> {
  const outcome = await waitForRender(
    deps,
    design.id,
    design.layout_version,
    deps.renderWaitMs ?? RENDER_WAIT_MS,
  );
  const pageIds = outcome.rendered ? await renderedPages(deps.pool, design.id) : [];
  return { pageIds, error: outcome.error };
}

/**
 * The one way a design operation waits for a render: `queue` (which stores the change and
 * queues its render in one transaction, or only names the design to wait for) runs while the
 * account holds one of its render slots, refused with 429 `too_many_renders` before anything
 * is stored when none is free; then the render is waited for, bounded, in the same slot.
 */
export function renderAndWait<
  T extends { design: Pick<DesignRow, 'id' | 'layout_version' | 'layout'> },
>(deps: DesignDeps, accountId: string, queue: () => Promise<T>): Promise<T & RenderedPages> {
  return withRenderSlot(deps.renders, accountId, async () => {
    const queued = await queue();
    // A video design renders no pages (export_video makes its file): nothing to wait for.
    if (isVideoLayout(queued.design.layout)) return { ...queued, pageIds: [], error: null };
    return { ...queued, ...(await awaitPages(deps, queued.design)) };
  });
}

/** The design's state with the pages its render gave (renderAndWait). */
export async function designState(
  deps: DesignDeps,
  design: DesignRow,
  postId: string | null,
  { pageIds, error }: RenderedPages,
): Promise<DesignState> {
  const linked = await unpublishedPostsOf(deps.pool, design.id);
  return {
    design_id: design.id,
    post_id: postId,
    template: design.template,
    layout_version: design.layout_version,
    layout: design.layout,
    linked_post_ids: linked.map((p) => p.id),
    media_paths: pagePaths(deps, pageIds),
    render_error: error,
  };
}
