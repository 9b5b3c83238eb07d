// The designs concept's front door: other code reaches designs through these operations (and
// the types of schema.ts). A design holds a Canvas layout or a video's timeline; its table is
// written by db.ts alone, makeDesign its only inserter. Templates (core/templates/) and video
// (core/video/) build on these, never the other way round.
export { checkedLayout, checkedVideoLayout, MAX_DRAWINGS_PER_LAYOUT } from './checkedLayout.ts';

import type { Queryable } from '../db/pool.ts';
import { designsShowingDrawing } from './db.ts';

export {
  type DesignRow,
  type DesignSource,
  designById,
  findDesign,
  lockDesign,
  makeDesign,
  renderedPages,
} from './db.ts';
export { designDetail, GALLERY_PAGE, type GalleryDeps, listDesigns } from './designCards.ts';
export { designFit, designState, pagePaths } from './designState.ts';
export { changeDesign, editLayers, type LayoutChange } from './edit.ts';
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
// Who calls a design operation; long imported from here, so handed on beside the operations.
export type { DesignCaller } from './schema.ts';
export { isVideoLayout, parseVideoLayout } from './videoLayout.ts';

/** The account's designs with a layer showing the drawing (any page): what deleting it breaks. */
export async function designsShowing(
  db: Queryable,
  accountId: string,
  drawingId: string,
): Promise<string[]> {
  return designsShowingDrawing(db, accountId, drawingId);
}
