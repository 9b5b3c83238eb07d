// The designs concept's front door: other code reaches designs through these operations (and
// the types of schema.ts). A design holds a Canvas layout or a video's timeline; its table is
// written by db.ts alone, storeDesign the only way in. Templates (core/templates/) and video
// (core/video/) build on these, never the other way round.
export { checkedLayout, checkedVideoLayout, MAX_DRAWINGS_PER_LAYOUT } from './checkedLayout.ts';

import { pagesOfDesign } from '../assets/service.ts';
import type { Queryable } from '../db/pool.ts';
import { designById, designsShowingDrawing, lockDesign, makeDesign } from './db.ts';
import type { DesignMaker, DesignRow, DesignSource } from './schema.ts';

export { designDetail, GALLERY_PAGE, type GalleryDeps, listDesigns } from './designCards.ts';
export { designFit, designState, pagePaths } from './designState.ts';
export {
  changeDesign,
  editLayers,
  type LayoutChange,
  refuseOtherKind,
  wholeLayout,
} from './edit.ts';
export {
  assetIssues,
  imageLayerAsset,
  MAX_FRAME_PIXELS,
  MAX_VIDEO_FRAMES,
  type WantedAsset,
} from './layerChecks.ts';
export { applyLayerOps, applyVideoLayerOps } from './layerOps.ts';
export { getLayers, layerFrame, layerSummary, layersOf } from './layers.ts';
export { assignCids, pagesOf } from './layout.ts';
export {
  createPageImageCache,
  drawnSizes,
  type FrameGrabber,
  ownedImages,
  PAGE_IMAGE_PIXELS,
  type PageImageCache,
  pageDeadline,
  withPageImages,
} from './pageImages.ts';
export { PREVIEW_WIDTH, type Preview, previewPage } from './preview.ts';
export { drawPage, type RenderDeps, renderDesignJob } from './renderJob.ts';
export {
  createRenderWaits,
  type DesignDeps,
  RENDER_WAIT_MS,
  RENDERED_CHANNEL,
  RENDERS_PER_ACCOUNT,
  type RenderedPages,
  type RenderOutcome,
  type RenderWaits,
  renderAndWait,
  waitForRender,
  withRenderSlot,
} from './renderWaits.ts';
export { layoutOfPost, resolveDesign } from './resolveDesign.ts';
export { isVideoLayout, parseVideoLayout } from './videoLayout.ts';

/** The account's designs with a layer showing the drawing (any page): what deleting it breaks. */
export async function designsShowing(
  db: Queryable,
  accountId: string,
  drawingId: string,
): Promise<string[]> {
  return designsShowingDrawing(db, accountId, drawingId);
}

/**
 * Makes a design row for `maker`'s account, from a layout or a copy of one of its designs.
 * Refused with 403 plan_limit past the plan's design limit (a frozen copy is never refused).
 * Call it in the transaction that goes on to use the design: the count is taken under the
 * account's advisory design lock, held until that transaction ends, so concurrent creates
 * cannot pass the limit together. Nothing else inserts designs.
 */
export async function storeDesign(
  tx: Queryable,
  maker: DesignMaker,
  source: DesignSource,
): Promise<DesignRow> {
  return makeDesign(tx, maker, source);
}

/**
 * The account's design, held (a share lock) until `tx` ends: its layout cannot change under
 * the transaction that reads it, and others may still read it. Undefined when not the
 * account's.
 */
export async function holdDesign(
  tx: Queryable,
  accountId: string,
  designId: string,
): Promise<DesignRow | undefined> {
  return lockDesign(tx, accountId, designId, 'share');
}

/** Any design by id, whoever owns it: for a job whose start checked the account already. */
export async function designForJob(
  db: Queryable,
  designId: string,
): Promise<DesignRow | undefined> {
  return designById(db, designId);
}

/** The pages of a design's last render (asset ids), in page order. */
export async function renderedPages(db: Queryable, designId: string): Promise<string[]> {
  return pagesOfDesign(db, designId);
}
