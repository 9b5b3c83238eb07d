// The dashboard's view of designs: a brand's designs as cards, and one design with its layers
// and its rendered pages as addresses an <img> can load (signed, no credential needed).
import { firstPagesOf, signAssetUrl } from '../assets/service.ts';
import { requireBrandFor } from '../brands/service.ts';
import type { Queryable } from '../db/pool.ts';
import { brandDesigns, renderedPages } from './db.ts';
import { layersOf } from './layers.ts';
import { pagesOf } from './layout.ts';
import { resolveDesign } from './resolveDesign.ts';
import type { DesignCaller, DesignCard, DesignDetail, ListDesignsQuery } from './schema.ts';
import { isVideoLayout } from './videoLayout.ts';

/** Designs a gallery page shows. */
export const GALLERY_PAGE = 48;

export type GalleryDeps = { pool: Queryable; publicBaseUrl: string; urlKey?: Buffer };

const signed = (deps: GalleryDeps, assetId: string | null) =>
  assetId && deps.urlKey ? signAssetUrl(deps.publicBaseUrl, deps.urlKey, assetId) : null;

/**
 * A page of a brand's designs (the selected brand when brand_id is omitted), newest first,
 * with where the next page starts.
 */
export async function listDesigns(
  deps: GalleryDeps,
  caller: DesignCaller,
  q: ListDesignsQuery,
): Promise<{ designs: DesignCard[]; next_offset: number | null }> {
  const brand = await requireBrandFor(deps.pool, caller, q.brand_id);
  const rows = await brandDesigns(deps.pool, caller.accountId, brand.id, {
    offset: q.offset,
    limit: GALLERY_PAGE + 1,
  });
  const shown = rows.slice(0, GALLERY_PAGE);
  const firstPages = await firstPagesOf(
    deps.pool,
    shown.map((d) => d.id),
  );
  const designs = shown.map((d) => ({
    design_id: d.id,
    template: d.template,
    kind: isVideoLayout(d.layout) ? ('video' as const) : ('image' as const),
    layout_version: d.layout_version,
    rendered: d.rendered_version === d.layout_version,
    thumbnail_url: signed(deps, firstPages.get(d.id) ?? null),
    render_error: d.render_error,
    updated_at: d.updated_at.toISOString(),
  }));
  return { designs, next_offset: rows.length > GALLERY_PAGE ? q.offset + GALLERY_PAGE : null };
}

/** One design: its layers and its rendered pages (a video design has none: it is exported). */
export async function designDetail(
  deps: GalleryDeps,
  caller: DesignCaller,
  designId: string,
): Promise<DesignDetail> {
  const design = await resolveDesign(deps.pool, caller, { design_id: designId });
  const video = isVideoLayout(design.layout);
  const pages = video ? [] : await renderedPages(deps.pool, design.id);
  const layersByPage = isVideoLayout(design.layout)
    ? [design.layout.layers]
    : pagesOf(design.layout).map((p) => p.layers);
  const texts = layersByPage.flatMap((layers, page) =>
    layers.flatMap((l) => (l.kind === 'text' && l.cid ? [{ page, cid: l.cid, text: l.text }] : [])),
  );
  return {
    design_id: design.id,
    template: design.template,
    kind: video ? 'video' : 'image',
    layout_version: design.layout_version,
    rendered: design.rendered_version === design.layout_version,
    render_error: design.render_error,
    render_warnings: design.render_warnings ?? [],
    layers: layersOf(design),
    page_urls: pages.map((id) => signed(deps, id)).filter((u): u is string => u !== null),
    texts,
  };
}
