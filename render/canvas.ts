// Renders one page of a native Canvas layout to PNG with @napi-rs/canvas: a pure function of
// the layers (render/layout.ts), the fonts (render/fonts.ts) and the image bytes it is
// handed; no database, no storage. Layers are drawn in order, each turned around its frame's centre and faded by its
// opacity; a text layer wraps inside its frame and is cut at its height.

import { readFile } from 'node:fs/promises';
import { createCanvas, type Image, loadImage, type SKRSContext2D } from '@napi-rs/canvas';
import { getStroke } from 'perfect-freehand';
import { EMOJI_FAMILY, registerFonts } from './fonts.ts';
import type { DoodleLayer, ImageLayer, Layer, ShapeLayer, TextLayer } from './layout.ts';
import { wrapText } from './text.ts';

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
  /**
   * Whether to answer only the drawn pixels (a video still: ffmpeg then decodes and blends a
   * small picture each frame, not the whole frame) and where they sit.
   */
  cut?: boolean;
};

/** Where a picture sits in the frame: its top-left corner and size, in pixels. */
export type Box = { left: number; top: number; width: number; height: number };

/** A page as PNG bytes, or (with `cut`) its drawn pixels at `box`, empty when none show. */
export type RenderedPng = { png: Buffer; box?: Box };

/** Decodes image bytes once, for any number of pages and renders to draw. */
export const decodeImage = (bytes: Buffer): Promise<Image> => loadImage(bytes);

async function drawable(source: Buffer | Image | ImageFile): Promise<Image> {
  if (Buffer.isBuffer(source)) return decodeImage(source);
  if ('file' in source) return decodeImage(await readFile(source.file));
  return source;
}

export const fontOf = (l: Pick<TextLayer, 'weight' | 'size' | 'font'>) =>
  `${l.weight === 'bold' ? 'bold ' : ''}${l.size}px "${l.font}", "${EMOJI_FAMILY}"`;

/** The lines a text layer shows, and how tall they stand. */
export function layoutText(ctx: SKRSContext2D, l: TextLayer) {
  ctx.font = fontOf(l);
  const lines = wrapText(l.text, l.w, (t) => ctx.measureText(t).width);
  const lineHeight = l.size * l.line_height;
  return { lines, lineHeight, height: lines.length * lineHeight };
}

function drawText(ctx: SKRSContext2D, l: TextLayer) {
  const { lines, lineHeight } = layoutText(ctx, l);
  if (l.h !== undefined) {
    ctx.beginPath();
    ctx.rect(l.x, l.y, l.w, l.h);
    ctx.clip();
  }
  ctx.fillStyle = l.color;
  ctx.textBaseline = 'middle';
  ctx.textAlign = l.align;
  const x = l.align === 'left' ? l.x : l.align === 'center' ? l.x + l.w / 2 : l.x + l.w;
  // Lines below the cut are not drawn: they would only be clipped. A glyph may reach a size
  // above its line's middle, so a line starting up to a size below the cut is still drawn.
  const shown =
    l.h === undefined
      ? lines.length
      : Math.min(lines.length, Math.ceil((l.h + l.size) / lineHeight));
  for (let i = 0; i < shown; i++) ctx.fillText(lines[i]!, x, l.y + i * lineHeight + lineHeight / 2);
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
    // Keep the aspect ratio: take the middle of the source that has the frame's shape.
    if (source > frame) {
      const keep = sh * frame;
      sx += (sw - keep) / 2;
      sw = keep;
    } else {
      const keep = sw / frame;
      sy += (sh - keep) / 2;
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

/** The height a layer's rotation turns around; text without `h` stands as tall as its lines. */
function frameHeight(ctx: SKRSContext2D, layer: Layer): number {
  if (layer.h !== undefined) return layer.h;
  if (layer.kind === 'text') return layoutText(ctx, layer).height;
  return layer.w;
}

/** Renders one page to PNG bytes. */
export async function renderPage(input: RenderInput): Promise<Buffer> {
  return (await drawLayers(input)).encode('png');
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
  const canvas = await drawLayers(input);
  if (!input.cut) return { png: await canvas.encode('png') };
  const pixels = canvas.getContext('2d').getImageData(0, 0, input.width, input.height);
  const box = drawnBox(pixels.data, input.width, input.height);
  if (!box) return { png: Buffer.alloc(0), box: { left: 0, top: 0, width: 0, height: 0 } };
  const cut = createCanvas(box.width, box.height);
  cut
    .getContext('2d')
    .putImageData(pixels, -box.left, -box.top, box.left, box.top, box.width, box.height);
  return { png: await cut.encode('png'), box };
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
    if (layer.kind === 'text') drawText(ctx, layer);
    else if (layer.kind === 'image') {
      const image = decoded.get(layer.asset_id);
      if (image) drawImage(ctx, layer, image);
    } else if (layer.kind === 'shape') drawShape(ctx, layer);
    else if (layer.kind === 'doodle') drawDoodle(ctx, layer);
    ctx.restore();
  }
  return canvas;
}
