// The layers the renderer draws, as plain types in the form they take once a layout is
// validated (every default filled in). render/ owns them and imports nothing from core/;
// core/designs/layout.ts validates input with zod schemas and the compiler checks that what
// they produce is exactly these types, so the two cannot drift apart. The zod schemas stay in
// core/: they carry the API's policy (id format, limits and their messages, the descriptions
// agents read), none of which the renderer needs. Lengths are canvas pixels, angles degrees
// clockwise around the frame's centre, colours hex strings ('#rrggbb' and the like).

type Frame = {
  /** Stable layer id (edits keep it). */
  cid?: string | undefined;
  x: number;
  y: number;
  w: number;
  rotation: number;
  /** 0 to 1. */
  opacity: number;
  /** The template slot the layer fills or decorates (not drawn). */
  slot?: string | undefined;
};

export type TextLayer = Frame & {
  kind: 'text';
  /** Holds whole lines only (see `fit`); undefined: as tall as the text. */
  h?: number | undefined;
  text: string;
  /** Font size in pixels. */
  size: number;
  /** A family render/fontFamilies.ts ships. */
  font: string;
  weight: 'normal' | 'bold';
  color: string;
  align: 'left' | 'center' | 'right';
  /** Line spacing, times the size. */
  line_height: number;
  /**
   * Text taller than `h`: `shrink` lowers the size down to `min_size`, `clip` shows the whole
   * lines that fit, `ellipsis` ends the last of them at a word with "…".
   */
  fit: 'shrink' | 'clip' | 'ellipsis';
  /** The smallest size `shrink` may reach; undefined: 45% of `size`. */
  min_size?: number | undefined;
  /** Where the lines sit inside `h`. */
  valign: 'top' | 'middle' | 'bottom';
  /** Shown in capitals; `text` keeps the case it was given in. */
  caps?: boolean | undefined;
};

export type ImageLayer = Frame & {
  kind: 'image';
  h: number;
  /** The key of the image in a page's images (render/canvas.ts RenderInput). */
  asset_id: string;
  fit: 'cover' | 'contain';
  /** The part of the source drawn, as fractions of its width and height. */
  crop?: { x: number; y: number; w: number; h: number } | undefined;
  /**
   * cover: the point of the source (fractions) kept in view, as near the middle as the crop
   * allows; 'auto' is resolved before drawing (core/designs/pageImages.ts), else the centre.
   */
  focus?: 'auto' | { x: number; y: number } | undefined;
  /** `asset_id` names a video: the frame at this second (drawn from its still, as any image). */
  frame_s?: number | undefined;
};

export type ShapeLayer = Frame & {
  kind: 'shape';
  h: number;
  shape: 'rect' | 'ellipse' | 'line';
  fill: string | null;
  stroke: string | null;
  stroke_width: number;
  /** Corner radius of a rect. */
  radius: number;
};

/** [x, y] or [x, y, pressure from 0 to 1], relative to the layer's frame. */
export type DoodlePoint = [number, number, (number | undefined)?];

export type DoodleLayer = Frame & {
  kind: 'doodle';
  h?: number | undefined;
  strokes: { points: DoodlePoint[]; width: number; color: string }[];
};

/** A drawing (render/drawing.ts) by id, scaled into the frame with its aspect kept. */
export type DrawingLayer = Frame & { kind: 'drawing'; h: number; drawing_id: string };

export type Layer = TextLayer | ImageLayer | ShapeLayer | DoodleLayer | DrawingLayer;
