// Renders one page of a native Canvas layout to PNG with @napi-rs/canvas: a pure function of
// the layers (render/layout.ts), the fonts (render/fonts.ts) and the image bytes it is
// handed; no database, no storage. Layers are drawn in order, each turned around its frame's
// centre and faded by its opacity; a text layer wraps inside its frame and shows the whole
// lines its height holds, fitted by its `fit` rule (render/textFit.ts). Text left out is
// answered as a warning, never an error: the page is still drawn.

import { readFile } from 'node:fs/promises';
import { createCanvas, type Image, loadImage, type SKRSContext2D } from '@napi-rs/canvas';
import { getStroke } from 'perfect-freehand';
import { type Drawing, strokesCanvas } from './drawing.ts';
import { fontStack, registerFonts } from './fonts.ts';
import type {
  DoodleLayer,
  DrawingLayer,
  ImageLayer,
  Layer,
  ShapeLayer,
  TextLayer,
} from './layout.ts';
import { type FittedText, fitText, type InkExtent } from './textFit.ts';

/**
 * An image in a local file, already scaled to the size it is drawn at (a render thread reads
 * it itself, so its bytes never pass through the caller's heap).
 */
export type ImageFile = { file: string };

export type RenderInput = {
  width: number;
  height: number;
  bg: string;
  layers: Layer[];
  /**
   * The images the layers name, by asset id: encoded bytes, images decoded already, or files
   * (what a render thread is handed: scaled to the size they are drawn at by
   * core/designs/pageImages.ts, so Skia never decodes a large image).
   */
  images: ReadonlyMap<string, Buffer | Image | ImageFile>;
  /** The drawings the layers name, by drawing id. */
  drawings?: ReadonlyMap<string, Drawing>;
  /**
   * Whether to answer only the drawn pixels (a video still: ffmpeg then decodes and blends a
   * small picture each frame, not the whole frame) and where they sit.
   */
  cut?: boolean;
};

/** Where a picture sits in the frame: its top-left corner and size, in pixels. */
export type Box = { left: number; top: number; width: number; height: number };

/**
 * Something the page shows differently from its layout: text that did not fit its frame, a
 * word broken across lines because no size in reach kept it whole, or an image not handed
 * over (deleted since the layout was saved), left out.
 */
export type RenderWarning = {
  code: 'text_overflow' | 'word_broken' | 'image_missing';
  cid: string | null;
};

/** What fitting a text layer gives cause to warn about, if anything. */
function textWarning(l: TextLayer, fitted: FittedText): RenderWarning | undefined {
  if (fitted.overflow) return { code: 'text_overflow', cid: l.cid ?? null };
  if (fitted.broken && l.fit === 'shrink') return { code: 'word_broken', cid: l.cid ?? null };
  return undefined;
}

/**
 * A page as PNG bytes, or (with `cut`) its drawn pixels at `box`, empty when none show; and
 * what did not fit.
 */
export type RenderedPng = { png: Buffer; box?: Box; warnings: RenderWarning[] };

/** Decodes image bytes once, for any number of pages and renders to draw. */
export const decodeImage = (bytes: Buffer): Promise<Image> => loadImage(bytes);

async function drawable(source: Buffer | Image | ImageFile): Promise<Image> {
  if (Buffer.isBuffer(source)) return decodeImage(source);
  if ('file' in source) return decodeImage(await readFile(source.file));
  return source;
}

export const fontOf = (l: Pick<TextLayer, 'weight' | 'size' | 'font'>) =>
  `${l.weight === 'bold' ? 'bold ' : ''}${l.size}px ${fontStack(l.font)}`;

// Text measurements at REFERENCE_SIZE (width, and the ink above the middle), by font and
// string: they scale with the size, so the sizes a shrink search tries, and every later
// render of the same copy, share them. Bounded by the characters held; emptied when full.
const REFERENCE_SIZE = 100;
const MEASURED_CHARS = 4_000_000;
const measured = new Map<string, { width: number; above: number }>();
let measuredChars = 0;
/** How deep each face's descenders reach below a line's middle, per pixel of size. */
const depths = new Map<string, number>();

function measurer(ctx: SKRSContext2D, l: TextLayer) {
  const face = `${l.weight} ${l.font}`;
  ctx.font = fontOf({ ...l, size: REFERENCE_SIZE });
  ctx.textBaseline = 'middle';
  let below = depths.get(face);
  if (below === undefined) {
    below = ctx.measureText('gjpqyÇ|').actualBoundingBoxDescent / REFERENCE_SIZE;
    depths.set(face, below);
  }
  const measure = (text: string) => {
    const key = `${face}\u0000${text}`;
    let m = measured.get(key);
    if (m === undefined) {
      const metrics = ctx.measureText(text);
      m = { width: metrics.width, above: metrics.actualBoundingBoxAscent };
      if (measuredChars + key.length > MEASURED_CHARS) {
        measured.clear();
        measuredChars = 0;
      }
      measured.set(key, m);
      measuredChars += key.length;
    }
    return m;
  };
  const measureAt = (text: string, size: number) => (measure(text).width * size) / REFERENCE_SIZE;
  const ink: InkExtent = { above: (line) => measure(line).above / REFERENCE_SIZE, below };
  return { measureAt, ink };
}

/** The lines a text layer shows at the size its fit rule chose, and where they sit. */
export function layoutText(ctx: SKRSContext2D, l: TextLayer): FittedText {
  const { measureAt, ink } = measurer(ctx, l);
  return fitText(l.caps ? { ...l, text: l.text.toUpperCase() } : l, measureAt, ink);
}

/**
 * The warnings a page's text would give when drawn, without drawing it (the same fitting
 * renderPng does): for checking many layouts quickly.
 */
export function textWarnings(layers: Layer[]): RenderWarning[] {
  registerFonts();
  const ctx = createCanvas(1, 1).getContext('2d');
  return layers.flatMap((l) => {
    const warning = l.kind === 'text' && l.opacity > 0 && textWarning(l, layoutText(ctx, l));
    return warning ? [warning] : [];
  });
}

/** Draws a text layer; what did not fit, if anything. */
function drawText(ctx: SKRSContext2D, l: TextLayer): RenderWarning | undefined {
  const fitted = layoutText(ctx, l);
  const { lines, lineHeight } = fitted;
  ctx.font = fontOf({ ...l, size: fitted.size });
  ctx.fillStyle = l.color;
  ctx.textBaseline = 'middle';
  ctx.textAlign = l.align;
  const x = l.align === 'left' ? l.x : l.align === 'center' ? l.x + l.w / 2 : l.x + l.w;
  const top = l.y + fitted.top;
  for (const [i, line] of lines.entries())
    ctx.fillText(line, x, top + i * lineHeight + lineHeight / 2);
  return textWarning(l, fitted);
}

function drawImage(ctx: SKRSContext2D, l: ImageLayer, image: Image) {
  const crop = l.crop ?? { x: 0, y: 0, w: 1, h: 1 };
  let sx = crop.x * image.width;
  let sy = crop.y * image.height;
  let sw = Math.min(crop.w, 1 - crop.x) * image.width;
  let sh = Math.min(crop.h, 1 - crop.y) * image.height;
  let dx = l.x;
  let dy = l.y;
  let dw = l.w;
  let dh = l.h;
  const source = sw / sh;
  const frame = l.w / l.h;
  if (l.fit === 'cover') {
    // Keep the aspect ratio: take the part of the source that has the frame's shape, centred
    // on the focus as far as the source allows (its middle without one).
    const focus = typeof l.focus === 'object' ? l.focus : undefined;
    const around = (start: number, span: number, keep: number, at: number | undefined) =>
      at === undefined
        ? start + (span - keep) / 2
        : Math.min(Math.max(at - keep / 2, start), start + span - keep);
    if (source > frame) {
      const keep = sh * frame;
      sx = around(sx, sw, keep, focus && focus.x * image.width);
      sw = keep;
    } else {
      const keep = sw / frame;
      sy = around(sy, sh, keep, focus && focus.y * image.height);
      sh = keep;
    }
  } else if (source > frame) {
    dh = l.w / source;
    dy += (l.h - dh) / 2;
  } else {
    dw = l.h * source;
    dx += (l.w - dw) / 2;
  }
  ctx.drawImage(image, sx, sy, sw, sh, dx, dy, dw, dh);
}

function drawShape(ctx: SKRSContext2D, l: ShapeLayer) {
  ctx.beginPath();
  if (l.shape === 'rect') ctx.roundRect(l.x, l.y, l.w, l.h, Math.min(l.radius, l.w / 2, l.h / 2));
  else if (l.shape === 'ellipse')
    ctx.ellipse(l.x + l.w / 2, l.y + l.h / 2, l.w / 2, l.h / 2, 0, 0, Math.PI * 2);
  else {
    ctx.moveTo(l.x, l.y);
    ctx.lineTo(l.x + l.w, l.y + l.h);
  }
  if (l.fill && l.shape !== 'line') {
    ctx.fillStyle = l.fill;
    ctx.fill();
  }
  if (l.stroke && l.stroke_width > 0) {
    ctx.strokeStyle = l.stroke;
    ctx.lineWidth = l.stroke_width;
    ctx.lineCap = 'round';
    ctx.stroke();
  }
}

function drawDoodle(ctx: SKRSContext2D, l: DoodleLayer) {
  for (const stroke of l.strokes) {
    const pressured = stroke.points.some((p) => p.length === 3);
    const outline = getStroke(
      stroke.points.map((p) => [l.x + p[0], l.y + p[1], p[2] ?? 0.5]),
      {
        size: stroke.width,
        thinning: 0.5,
        smoothing: 0.5,
        streamline: 0.5,
        simulatePressure: !pressured,
      },
    );
    if (outline.length < 2) continue;
    ctx.beginPath();
    ctx.moveTo(outline[0]![0]!, outline[0]![1]!);
    for (const [x, y] of outline.slice(1)) ctx.lineTo(x!, y!);
    ctx.closePath();
    ctx.fillStyle = stroke.color;
    ctx.fill();
  }
}

/** A drawing scaled into the layer's frame, its aspect kept, centred; its background too. */
function drawDrawing(ctx: SKRSContext2D, l: DrawingLayer, d: Drawing) {
  if (l.w <= 0 || l.h <= 0) return;
  const scale = Math.min(l.w / d.width, l.h / d.height);
  const w = d.width * scale;
  const h = d.height * scale;
  const x = l.x + (l.w - w) / 2;
  const y = l.y + (l.h - h) / 2;
  if (d.background !== 'transparent') {
    ctx.fillStyle = d.background;
    ctx.fillRect(x, y, w, h);
  }
  // Drawn at most 4096 pixels a side (a frame may be far larger than the page), then scaled.
  const drawn = Math.min(scale, 4096 / Math.max(d.width, d.height));
  ctx.drawImage(strokesCanvas(d, drawn), x, y, w, h);
}

/** The height a layer's rotation turns around; text without `h` stands as tall as its lines. */
function frameHeight(ctx: SKRSContext2D, layer: Layer): number {
  if (layer.h !== undefined) return layer.h;
  if (layer.kind === 'text') {
    const { lines, lineHeight } = layoutText(ctx, layer);
    return lines.length * lineHeight;
  }
  return layer.w;
}

/** Renders one page to PNG bytes. */
export async function renderPage(input: RenderInput): Promise<Buffer> {
  return (await drawLayers(input)).canvas.encode('png');
}

/** The smallest box holding every pixel that is not fully transparent, if any is. */
function drawnBox(rgba: Uint8ClampedArray, width: number, height: number): Box | undefined {
  let top = height;
  let bottom = -1;
  let left = width;
  let right = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    let first = -1;
    for (let x = 0; x < width; x++)
      if (rgba[row + x * 4 + 3] !== 0) {
        first = x;
        break;
      }
    if (first < 0) continue;
    let last = first;
    for (let x = width - 1; x > first; x--)
      if (rgba[row + x * 4 + 3] !== 0) {
        last = x;
        break;
      }
    top = Math.min(top, y);
    bottom = y;
    left = Math.min(left, first);
    right = Math.max(right, last);
  }
  if (bottom < 0) return undefined;
  return { left, top, width: right - left + 1, height: bottom - top + 1 };
}

/** Renders one page, cut to its drawn pixels when `input.cut` says so. */
export async function renderPng(input: RenderInput): Promise<RenderedPng> {
  const { canvas, warnings } = await drawLayers(input);
  if (!input.cut) return { png: await canvas.encode('png'), warnings };
  const pixels = canvas.getContext('2d').getImageData(0, 0, input.width, input.height);
  const box = drawnBox(pixels.data, input.width, input.height);
  if (!box)
    return { png: Buffer.alloc(0), box: { left: 0, top: 0, width: 0, height: 0 }, warnings };
  const cut = createCanvas(box.width, box.height);
  cut
    .getContext('2d')
    .putImageData(pixels, -box.left, -box.top, box.left, box.top, box.width, box.height);
  return { png: await cut.encode('png'), box, warnings };
}

async function drawLayers(input: RenderInput) {
  registerFonts();
  const canvas = createCanvas(input.width, input.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = input.bg;
  ctx.fillRect(0, 0, input.width, input.height);
  // Only the images this page draws: a carousel's other pages may hold many more.
  const decoded = new Map<string, Image>();
  for (const layer of input.layers) {
    if (layer.kind !== 'image' || decoded.has(layer.asset_id)) continue;
    const source = input.images.get(layer.asset_id);
    if (source) decoded.set(layer.asset_id, await drawable(source));
  }

  const warnings: RenderWarning[] = [];
  for (const layer of input.layers) {
    if (layer.opacity === 0) continue;
    ctx.save();
    ctx.globalAlpha = layer.opacity;
    if (layer.rotation) {
      const cx = layer.x + layer.w / 2;
      const cy = layer.y + frameHeight(ctx, layer) / 2;
      ctx.translate(cx, cy);
      ctx.rotate((layer.rotation * Math.PI) / 180);
      ctx.translate(-cx, -cy);
    }
    if (layer.kind === 'text') {
      const warning = drawText(ctx, layer);
      if (warning) warnings.push(warning);
    } else if (layer.kind === 'image') {
      const image = decoded.get(layer.asset_id);
      if (image) drawImage(ctx, layer, image);
      else if (layer.w > 0 && layer.h > 0)
        warnings.push({ code: 'image_missing', cid: layer.cid ?? null });
    } else if (layer.kind === 'drawing') {
      const drawing = input.drawings?.get(layer.drawing_id);
      if (drawing) drawDrawing(ctx, layer, drawing);
      else if (layer.w > 0 && layer.h > 0)
        warnings.push({ code: 'image_missing', cid: layer.cid ?? null });
    } else if (layer.kind === 'shape') drawShape(ctx, layer);
    else if (layer.kind === 'doodle') drawDoodle(ctx, layer);
    ctx.restore();
  }
  return { canvas, warnings };
}
