// A drawing's size as exported, apart from the drawing code so the API can check a request
// without loading Skia.

/** The formats a drawing is exported as, and the scales it is drawn at. */
export const DRAWING_FORMATS = ['png', 'svg'] as const;
export type DrawingFormat = (typeof DRAWING_FORMATS)[number];
export const MIN_SCALE = 0.25;
export const MAX_SCALE = 4;

/** The most pixels a PNG export holds (4096 × 4096): bounds what one export asks of Skia. */
export const MAX_EXPORT_PIXELS = 4096 * 4096;

/** The pixel size of a drawing at `scale`, as drawingPng and drawingSvg size it. */
export const scaledSize = (d: { width: number; height: number }, scale: number) => ({
  width: Math.max(1, Math.round(d.width * scale)),
  height: Math.max(1, Math.round(d.height * scale)),
});
