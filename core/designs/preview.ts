// A Canvas design's page previewed: the current layout rendered (the call waits, bounded, as
// every design operation does), the page scaled down to PREVIEW_WIDTH as JPEG, with its served
// path and its signed address. Called by video's previewDesign, which answers MCP preview_design
// and the dashboard's preview for both kinds of design (a video design's poster frames are
// video's).
import sharp from 'sharp';
import { signAssetUrl, storageKeyOfAsset } from '../assets/service.ts';
import { conflict } from '../kernel/errors.ts';
import { readAll, type Storage } from '../storage/storage.ts';
import { pagePaths } from './designState.ts';
import { type DesignDeps, renderAndWait } from './renderWaits.ts';
import type { DesignRow, RenderWarning } from './schema.ts';

/** A design previewed (it holds image bytes, so it is no schema the dashboard reads). */
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

export const PREVIEW_WIDTH = 480;

/** Page `page` (0-based) of a Canvas design's current layout, rendered first if need be. */
export async function previewPage(
  deps: DesignDeps & { storage: Storage; urlKey?: Buffer },
  accountId: string,
  design: DesignRow,
  page: number,
): Promise<Preview> {
  const { pageIds, error, warnings } = await renderAndWait(deps, accountId, async () => ({
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
    design_id: design.id,
    layout_version: design.layout_version,
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
