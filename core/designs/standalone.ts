// Design operations of MCP that are not post creation or edits: create_design (a design master
// with no post), get_layers (a compact view of the layers) and preview_design (a rendered page
// scaled down, with a served address). The API never draws: previews are the worker's pages.
import sharp from 'sharp';
import { storageKeyOf } from '../assets/db.ts';
import { signAssetUrl } from '../assets/signedUrls.ts';
import { findOwnedBrandByUuid } from '../brands/db.ts';
import { type Queryable, withTransaction } from '../db/pool.ts';
import { conflict, notFound } from '../errors.ts';
import { isId } from '../ids.ts';
import { enqueueRender } from '../jobs/tasks.ts';
import { designIdOfPost } from '../posts/db.ts';
import { readAll, type Storage } from '../storage/storage.ts';
import { type DesignRow, findDesign, insertDesign } from './db.ts';
import { layerFrame, layerSummary } from './layerSummary.ts';
import { ASPECTS, Layout, pagesOf } from './layout.ts';
import type { CreateDesignInput, DesignRef, DesignState, LayersView } from './schema.ts';
import {
  checkedLayout,
  type DesignCaller,
  type DesignDeps,
  designState,
  pagePaths,
  renderAndWait,
  templateFor,
} from './service.ts';
import { layoutFromTemplate } from './templates.ts';
import { videoLayers } from './videoDesigns.ts';
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
  const brandId = (await findOwnedBrandByUuid(deps.pool, caller.accountId, input.brand_uuid))?.id;
  if (!brandId) throw notFound('Brand');
  const template = templateFor(caller, input.template, ['template']);
  const layout = await checkedLayout(
    deps.pool,
    caller.accountId,
    Layout.parse(layoutFromTemplate(template, input.canvas, { headline: input.headline })),
    ['layout'],
  );
  return withTransaction(deps.pool, async (tx) => {
    const row = await insertDesign(tx, {
      accountId: caller.accountId,
      brandId,
      template: template.name,
      layout,
    });
    await enqueueRender(tx, row.id, row.layout_version);
    return row;
  });
}

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

/** MCP get_layers: index, cid, kind, a short summary and the frame of every layer. */
export async function getLayers(
  db: Queryable,
  caller: DesignCaller,
  ref: DesignRef,
): Promise<LayersView> {
  const design = await resolveDesign(db, caller, ref);
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
  page: number;
  pages: number;
  media_path: string;
  preview_url: string | null;
  /** The page scaled to PREVIEW_WIDTH, as JPEG. */
  image: Buffer;
};

/** MCP preview_design: the current layout's rendered page, scaled down. */
export async function previewDesign(
  deps: DesignDeps & { storage: Storage; urlKey?: Buffer },
  caller: DesignCaller,
  ref: DesignRef,
  page: number,
): Promise<Preview> {
  const design = await resolveDesign(deps.pool, caller, ref);
  const { pageIds, error } = await renderAndWait(deps, caller.accountId, async () => ({ design }));
  if (error) throw conflict('render_failed', error);
  const pageId = pageIds[page];
  if (!pageId)
    throw conflict('no_such_page', `The design has ${pageIds.length} page(s); page is 0-based.`);
  const png = await readAll(deps.storage, (await storageKeyOf(deps.pool, pageId))!);
  const image = await sharp(png).resize({ width: PREVIEW_WIDTH }).jpeg({ quality: 80 }).toBuffer();
  return {
    design_id: design.id,
    layout_version: design.layout_version,
    page,
    pages: pageIds.length,
    media_path: pagePaths(deps, [pageId])[0]!,
    preview_url: deps.urlKey ? signAssetUrl(deps.publicBaseUrl, deps.urlKey, pageId) : null,
    image,
  };
}

/** MCP get_post's layout part: the design the post shows, if any. */
export async function layoutOfPost(db: Queryable, caller: DesignCaller, designId: string | null) {
  if (!designId) return { layout: null, layout_version: null };
  const design = await findDesign(db, caller.accountId, designId);
  return { layout: design?.layout ?? null, layout_version: design?.layout_version ?? null };
}
