// What every design operation shares: checking a layout beyond its schema, choosing a
// template (premium ones need the pro plan), queueing a render in the caller's transaction and
// waiting for it, bounded, and answering the design's state with its rendered pages.

import { assetContentUrl } from '../assets/service.ts';
import { brandKitOf } from '../brandMemory/service.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import { missingDrawings } from '../drawings/service.ts';
import {
  conflict,
  DomainError,
  invalid,
  notFound,
  ValidationFailed,
  type ValidationIssue,
} from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import { planAtLeast } from '../kernel/plans.ts';
import { inferKind, platformFitIssues } from '../kernel/platformFit.ts';
import type { Platform } from '../kernel/platforms.ts';
import type { Principal } from '../kernel/principal.ts';
import { designOfPost, unpublishedPostsShowing } from '../posts/service.ts';
import { closestMatch, grouped } from '../validation.ts';
import { type DesignRow, designsShowingDrawing, findDesign, renderedPages } from './db.ts';
import {
  assetIssues,
  frameIssues,
  imageLayerAsset,
  type PlacedLayer,
  textIssues,
  type WantedAsset,
} from './layerChecks.ts';
import { type Aspect, assignCids, Layout, MAX_TEXT_PER_LAYER, pagesOf } from './layout.ts';
import { type RenderWaits, waitForRender, withRenderSlot } from './renderWaits.ts';
import type { DesignRef, DesignState, RenderWarning, SlotsInput } from './schema.ts';
import { type ImageFill, instantiate, type SlotFill } from './templateKit.ts';
import { copySlotsOf, slotsOf, TEMPLATES, type Template } from './templates.ts';
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
  if (!template) {
    const match = closestMatch(name!.toLowerCase().replace(/\s+/g, '-'), [...TEMPLATES.keys()]);
    throw invalid(
      loc,
      `unknown template "${name}"; ${match ? `did you mean "${match}"? ` : ''}list_design_templates (MCP) lists them, and GET /design-templates/{name}/thumbnail.png shows each`,
    );
  }
  if (template.premium && !planAtLeast(caller.plan, PREMIUM_TEMPLATE_PLAN))
    throw new DomainError(
      403,
      'plan_required',
      `Template "${template.name}" is premium: it needs the ${PREMIUM_TEMPLATE_PLAN} plan or higher.`,
    );
  return template;
}

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * The post copy as template slots: the headline its first sentence (of its first line), the
 * body the rest (or the slots the template names for them: a quote card's quote).
 */
export function copySlots(template: Template, copy: string, loc: Loc): SlotSource {
  const [first = '', ...lines] = copy.trim().split('\n');
  const [headline = '', ...rest] = Array.from(sentences.segment(first.trim()), (s) => s.segment);
  const body = [rest.join('').trim(), ...lines].join('\n').trim();
  const into = copySlotsOf(template);
  return { values: { [into.headline]: headline.trim(), [into.body]: body }, at: () => loc };
}

type Loc = (string | number)[];
/**
 * Slot contents from somewhere (the design, the post copy), and where a refusal of one
 * points (the post copy's headline and body both come from its `body`).
 */
export type SlotSource = {
  values: Record<string, string | ImageFill | null>;
  at: (slot: string) => Loc;
};

/**
 * What fills a template's slots: the request's `slots` (each checked against the template's
 * slots and their kinds; null removes a slot), then each fallback in turn for the slots still
 * open (the design's current content on a re-lay, the post's copy). Text longer than a layer
 * takes is refused where it was given, never cut. `requested` names the image slots the
 * request filled, whose assets must be the account's (templateLayout).
 */
export function templateFill(
  template: Template,
  given: SlotsInput | undefined,
  loc: Loc,
  ...fallbacks: SlotSource[]
): SlotFill & { requested: Set<string> } {
  const slots = slotsOf(template);
  const names = slots.map((s) => s.name);
  for (const [name, value] of Object.entries(given ?? {})) {
    const slot = slots.find((s) => s.name === name);
    if (!slot) {
      const match = closestMatch(name, names);
      throw invalid(
        [...loc, name],
        `template ${template.name} has no slot "${name}"; ${match ? `did you mean "${match}"? ` : ''}its slots: ${names.join(', ') || 'none'}`,
      );
    }
    if (value !== null && (typeof value === 'string') !== (slot.kind === 'text'))
      throw invalid(
        [...loc, name],
        slot.kind === 'text'
          ? `"${name}" is a text slot: give a string`
          : `"${name}" is an image slot: give {"asset_id": "..."}`,
      );
  }
  const fill = { texts: {}, images: {}, requested: new Set<string>() } as SlotFill & {
    requested: Set<string>;
  };
  const settled = new Set<string>();
  const request: SlotSource = { values: given ?? {}, at: (slot) => [...loc, slot] };
  for (const source of [request, ...fallbacks])
    for (const slot of slots) {
      const value = source.values[slot.name];
      if (value === undefined || settled.has(slot.name)) continue;
      if (value === null) settled.add(slot.name);
      else if (slot.kind === 'text' && typeof value === 'string' && value.trim()) {
        if (value.length > MAX_TEXT_PER_LAYER)
          throw invalid(
            source.at(slot.name),
            `the ${slot.name} (${grouped(value.length)} characters) is longer than a template's text slot takes (at most ${grouped(MAX_TEXT_PER_LAYER)}): shorten it, or give a layout of your own`,
            'too_long',
          );
        fill.texts[slot.name] = value;
        settled.add(slot.name);
      } else if (slot.kind === 'image' && typeof value === 'object') {
        fill.images[slot.name] = value;
        settled.add(slot.name);
        if (source === request) fill.requested.add(slot.name);
      }
    }
  return fill;
}

/**
 * What a design's slots hold now, for a re-lay: the text or image of each layer that fills
 * one, when the design was laid out from a template of today's catalogue (older designs hold
 * their templates' sample copy in their slots). The logo is left to the request or the kit.
 */
export function currentSlots(design: Pick<DesignRow, 'layout' | 'template'>): SlotSource {
  const found: SlotSource['values'] = {};
  const source = { values: found, at: () => ['layout'] };
  if (!TEMPLATES.has(design.template)) return source;
  for (const layer of pagesOf(design.layout).flatMap((p) => p.layers)) {
    if (!layer.slot || layer.slot === 'logo' || layer.slot in found) continue;
    if (layer.kind === 'text' && layer.text.trim()) found[layer.slot] = layer.text;
    if (layer.kind === 'image')
      found[layer.slot] = {
        asset_id: layer.asset_id,
        ...(typeof layer.focus === 'object' ? { focus: layer.focus } : {}),
        ...(layer.frame_s === undefined ? {} : { frame_s: layer.frame_s }),
      };
  }
  return source;
}

/**
 * The template laid out at `aspect` (its own when undefined) with `fill`, styled with the
 * brand's kit: its colours and fonts, and its logo in a logo slot the request left open
 * (while the brand still owns that image). An image the request gave must be the account's
 * (a 422 at its slot); one carried over from the design that is gone is left out.
 */
export async function templateLayout(
  db: Queryable,
  accountId: string,
  brandId: string,
  template: Template,
  aspect: Aspect | undefined,
  fill: SlotFill & { requested: Set<string> },
  loc: Loc,
): Promise<Layout> {
  const kit = await brandKitOf(db, accountId, brandId);
  const images = { ...fill.images };
  const logo = kit.logo_asset_id;
  const opened = !(Object.hasOwn(images, 'logo') || fill.requested.has('logo'));
  if (logo && opened && slotsOf(template).some((s) => s.name === 'logo'))
    images.logo = { asset_id: logo };
  const wanted = Object.entries(images).map(([slot, image]) =>
    imageLayerAsset(image, [...loc, slot]),
  );
  const issues = await assetIssues(db, accountId, wanted);
  for (const issue of issues) {
    const slot = String(issue.loc[loc.length]);
    if (fill.requested.has(slot)) throw new ValidationFailed([issue]);
    delete images[slot];
  }
  return Layout.parse(
    instantiate(template, aspect ?? template.aspect, { ...fill, images }, kit).layout,
  );
}

/** Distinct drawings one layout draws: each is read whole (up to 200,000 points) to render. */
export const MAX_DRAWINGS_PER_LAYOUT = 10;

/** Drawing layers naming no drawing of the account's, and past MAX_DRAWINGS_PER_LAYOUT. */
async function drawingIssues(
  db: Queryable,
  accountId: string,
  drawings: { id: string; at: Loc }[],
): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const distinct = [...new Set(drawings.map((d) => d.id))];
  if (distinct.length > MAX_DRAWINGS_PER_LAYOUT) {
    const over = drawings.find((d) => d.id === distinct[MAX_DRAWINGS_PER_LAYOUT])!;
    issues.push({
      loc: [...over.at, 'drawing_id'],
      msg: `at most ${MAX_DRAWINGS_PER_LAYOUT} distinct drawings a layout`,
      type: 'too_many_drawings',
    });
  }
  const missing = await missingDrawings(db, accountId, distinct);
  for (const d of drawings)
    if (missing.has(d.id))
      issues.push({
        loc: [...d.at, 'drawing_id'],
        msg: `no drawing ${d.id} of yours`,
        type: 'not_found',
      });
  return issues;
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
  const drawings: { id: string; at: Loc }[] = [];
  const issues: ValidationIssue[] = [];
  for (const [p, page] of pagesOf(layout).entries())
    for (const [i, layer] of page.layers.entries()) {
      const at = [...loc, ...(layout.pages ? ['pages', p] : []), 'layers', i];
      placed.push({ layer, at });
      if (layer.kind === 'drawing') drawings.push({ id: layer.drawing_id, at });
      if (layer.kind === 'image') images.push(imageLayerAsset(layer, at));
    }
  issues.unshift(...textIssues(placed, 'a layout', 'all pages together'), ...frameIssues(placed));
  issues.push(...(await assetIssues(db, accountId, images)));
  issues.push(...(await drawingIssues(db, accountId, drawings)));
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

/**
 * A render's outcome as an operation answers it: its page assets, or why there are none, and
 * what the pages could not show.
 */
export type RenderedPages = { pageIds: string[]; error: string | null; warnings: RenderWarning[] };

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
  return { pageIds, error: outcome.error, warnings: outcome.warnings };
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
    if (isVideoLayout(queued.design.layout))
      return { ...queued, pageIds: [], error: null, warnings: [] };
    return { ...queued, ...(await awaitPages(deps, queued.design)) };
  });
}

/** The design's state with the pages its render gave (renderAndWait). */
export async function designState(
  deps: DesignDeps,
  design: DesignRow,
  postId: string | null,
  { pageIds, error, warnings }: RenderedPages,
): Promise<DesignState> {
  const linked = await unpublishedPostsShowing(deps.pool, design.id);
  return {
    design_id: design.id,
    post_id: postId,
    template: design.template,
    layout_version: design.layout_version,
    layout: design.layout,
    linked_post_ids: linked.map((p) => p.id),
    media_paths: pagePaths(deps, pageIds),
    render_error: error,
    render_warnings: warnings,
  };
}

/** The account's designs with a layer showing the drawing (any page): what deleting it breaks. */
export async function designsShowing(
  db: Queryable,
  accountId: string,
  drawingId: string,
): Promise<string[]> {
  return designsShowingDrawing(db, accountId, drawingId);
}
