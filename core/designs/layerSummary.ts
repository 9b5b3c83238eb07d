// How get_layers describes a layer: a short summary and its frame (image and video designs).
import type { Layer } from './layout.ts';

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
