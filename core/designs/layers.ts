// MCP get_layers: a design's layers as a compact view, each with a short summary and its
// frame (a Canvas design's pages, a video design's one timeline with clip ids and times).
import type { Queryable } from '../db/pool.ts';
import { ASPECTS, type Layer, pagesOf } from './layout.ts';
import { resolveDesign } from './resolveDesign.ts';
import type { DesignCaller, DesignRef, DesignRow, LayersView } from './schema.ts';
import { isVideoLayout, VIDEO_ASPECTS, type VideoLayout } from './videoLayout.ts';

const SUMMARY_CHARS = 60;

export function layerSummary(layer: Layer): string {
  switch (layer.kind) {
    case 'text':
      return [...layer.text].length > SUMMARY_CHARS
        ? `"${[...layer.text].slice(0, SUMMARY_CHARS).join('')}…"`
        : `"${layer.text}"`;
    case 'image':
      return `image asset ${layer.asset_id} (${layer.fit})`;
    case 'shape':
      return `${layer.shape}${layer.fill ? ` fill ${layer.fill}` : ''}${layer.stroke ? ` stroke ${layer.stroke}` : ''}`;
    case 'doodle':
      return `${layer.strokes.length} stroke(s)`;
    case 'drawing':
      return `drawing ${layer.drawing_id}`;
  }
}

export const layerFrame = (layer: Layer) => ({
  x: layer.x,
  y: layer.y,
  w: layer.w,
  h: 'h' in layer && layer.h !== undefined ? layer.h : null,
  rotation: layer.rotation,
});

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

/** get_layers of a video design: its one timeline, with clip ids and times. */
export function videoLayers(designId: string, version: number, layout: VideoLayout): LayersView {
  const { aspect, duration_s } = layout.canvas;
  const size = VIDEO_ASPECTS[aspect];
  return {
    design_id: designId,
    layout_version: version,
    aspect,
    ...size,
    pages: 1,
    layers: layout.layers.map((layer, index) => {
      const times = { start_s: layer.start_s, end_s: layer.end_s ?? duration_s };
      if (layer.kind === 'video')
        return {
          page: 0,
          index,
          cid: layer.cid ?? '',
          kind: 'video',
          summary: `video asset ${layer.asset_id} (${layer.fit}${layer.muted ? ', muted' : ''}) from ${layer.trim_start_s} s`,
          frame: { x: 0, y: 0, w: size.width, h: size.height, rotation: 0 },
          clip_id: layer.clip_id,
          ...times,
        };
      const still: Layer = layer;
      return {
        page: 0,
        index,
        cid: layer.cid ?? '',
        kind: layer.kind,
        summary: layerSummary(still),
        frame: layerFrame(still),
        ...times,
      };
    }),
  };
}
