// Design operations of MCP that are not post creation or edits: create_design (a design master
// with no post), get_layers (a compact view of the layers) and preview_design (a rendered page
// scaled down, with a served address). The API never draws: previews are the worker's pages.
import sharp from 'sharp';
import { storageKeyOfAsset } from '../assets/service.ts';
import { signAssetUrl } from '../assets/signedUrls.ts';
import { requireOwnedBrandByUuid } from '../brands/service.ts';
import { type Queryable, withTransaction } from '../db/pool.ts';
import { enqueueRender } from '../jobs/tasks.ts';
import { conflict, invalid } from '../kernel/errors.ts';
import { readAll, type Storage } from '../storage/storage.ts';
import { type DesignRow, findDesign, makeDesign } from './db.ts';
import { layerFrame, layerSummary } from './layerSummary.ts';
import { ASPECTS, pagesOf } from './layout.ts';
import { withRenderSlot } from './renderWaits.ts';
import type {
  CreateDesignInput,
  DesignRef,
  DesignState,
  LayersView,
  RenderWarning,
} from './schema.ts';
import {
  checkedLayout,
  type DesignCaller,
  type DesignDeps,
  designState,
  pagePaths,
  renderAndWait,
  resolveDesign,
  templateFill,
  templateFor,
  templateLayout,
} from './service.ts';
import { videoLayers } from './videoDesigns.ts';
import { type JobDeps, previewVideo } from './videoJobs.ts';
import { isVideoLayout } from './videoLayout.ts';

/** MCP create_design: a design master for a brand, rendered, with no post and no schedule. */
export async function createDesign(
  deps: DesignDeps,
  caller: DesignCaller,
  input: CreateDesignInput,
): Promise<DesignState> {
  const { design, ...pages } = await renderAndWait(deps, caller.accountId, async () => ({
    design: await storeDesign(deps, caller, input),
  }));
  return designState(deps, design, null, pages);
}

/** The design checked, stored and its render queued. */
async function storeDesign(deps: DesignDeps, caller: DesignCaller, input: CreateDesignInput) {
  const brandId = (await requireOwnedBrandByUuid(deps.pool, caller.accountId, input.brand_uuid)).id;
  const template = templateFor(caller, input.template, ['template']);
  if (input.headline !== undefined && input.slots?.headline !== undefined)
    throw invalid(['headline'], 'give the headline or slots.headline, not both');
  const shorthand = { values: { headline: input.headline ?? null }, at: () => ['headline'] };
  const fill = templateFill(
    template,
    input.slots,
    ['slots'],
    ...(input.headline === undefined ? [] : [shorthand]),
  );
  const laid = await templateLayout(
    deps.pool,
    caller.accountId,
    brandId,
    template,
    input.canvas,
    fill,
    ['slots'],
  );
  const layout = await checkedLayout(deps.pool, caller.accountId, laid, ['template']);
  return withTransaction(deps.pool, async (tx) => {
    const row = await makeDesign(tx, caller, {
      from: 'layout',
      brandId,
      template: template.name,
      layout,
    });
    await enqueueRender(tx, row);
    return row;
  });
}

/** MCP get_layers: index, cid, kind, a short summary and the frame of every layer. */
export async function getLayers(
  db: Queryable,
  caller: DesignCaller,
  ref: DesignRef,
): Promise<LayersView> {
  return layersOf(await resolveDesign(db, caller, ref));
}

/** A design's layers as get_layers shows them. */
export function layersOf(design: DesignRow): LayersView {
  if (isVideoLayout(design.layout))
    return videoLayers(design.id, design.layout_version, design.layout);
  const pages = pagesOf(design.layout);
  const { aspect } = design.layout.canvas;
  return {
    design_id: design.id,
    layout_version: design.layout_version,
    aspect,
    ...ASPECTS[aspect],
    pages: pages.length,
    layers: pages.flatMap((page, p) =>
      page.layers.map((layer, index) => ({
        page: p,
        index,
        cid: layer.cid!,
        kind: layer.kind,
        summary: layerSummary(layer),
        frame: layerFrame(layer),
      })),
    ),
  };
}

export const PREVIEW_WIDTH = 480;

export type Preview = {
  design_id: string;
  layout_version: number;
  /** A Canvas design's page shown, and how many it has. */
  page: number | null;
  pages: number | null;
  /** A video design's times shown, one frame each. */
  times: number[] | null;
  media_path: string | null;
  preview_url: string | null;
  /** The page, or each frame, PREVIEW_WIDTH wide, as JPEG. */
  images: Buffer[];
  /**
   * Each image at a signed address (no credential; null without a signing key): a video
   * frame's JPEG, a Canvas page's full-size PNG (preview_url).
   */
  image_urls: (string | null)[];
  /** What the render could not show (text that did not fit its frame). */
  render_warnings: RenderWarning[];
};

/**
 * MCP preview_design: the current layout's rendered page, scaled down; for a video design,
 * its poster frames at `times`.
 */
export async function previewDesign(
  deps: DesignDeps & JobDeps & { storage: Storage },
  caller: DesignCaller,
  ref: DesignRef,
  show: { page: number; times?: number[] },
): Promise<Preview> {
  const design = await resolveDesign(deps.pool, caller, ref);
  const head = { design_id: design.id, layout_version: design.layout_version };
  if (isVideoLayout(design.layout)) {
    // Poster frames take a render slot like any design operation that waits for drawing.
    const { times, frames, urls } = await withRenderSlot(deps.renders, caller.accountId, () =>
      previewVideo(deps, caller, design, show.times ?? [0]),
    );
    const none = { page: null, pages: null, media_path: null, preview_url: null };
    return { ...head, ...none, times, images: frames, image_urls: urls, render_warnings: [] };
  }
  if (show.times)
    throw invalid(['times'], 'times are for video designs; a Canvas design previews a page');
  const { page } = show;
  const { pageIds, error, warnings } = await renderAndWait(deps, caller.accountId, async () => ({
    design,
  }));
  if (error) throw conflict('render_failed', error);
  const pageId = pageIds[page];
  if (!pageId)
    throw conflict('no_such_page', `The design has ${pageIds.length} page(s); page is 0-based.`);
  const png = await readAll(deps.storage, (await storageKeyOfAsset(deps.pool, pageId))!);
  const image = await sharp(png).resize({ width: PREVIEW_WIDTH }).jpeg({ quality: 80 }).toBuffer();
  const previewUrl = deps.urlKey ? signAssetUrl(deps.publicBaseUrl, deps.urlKey, pageId) : null;
  return {
    ...head,
    page,
    pages: pageIds.length,
    times: null,
    media_path: pagePaths(deps, [pageId])[0]!,
    preview_url: previewUrl,
    images: [image],
    image_urls: [previewUrl],
    render_warnings: warnings,
  };
}

/** MCP get_post's layout part: the design the post shows, if any. */
export async function layoutOfPost(db: Queryable, caller: DesignCaller, designId: string | null) {
  if (!designId) return { layout: null, layout_version: null };
  const design = await findDesign(db, caller.accountId, designId);
  return { layout: design?.layout ?? null, layout_version: design?.layout_version ?? null };
}
