// Freehand drawings (core/drawings/): each stroke's outline made by perfect-freehand from its
// points and options, then written once as SVG path data. The PNG draws that path data with
// @napi-rs/canvas (Path2D) and the SVG embeds it, so both formats have the same geometry.
// Strokes are drawn on a layer of their own above the background: a highlighter multiplies
// with the strokes under it, an eraser cuts them (never the background).
// Pure: a drawing in, bytes or text out; no database, no storage; imports nothing from core/.
import { type Canvas, createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import sharp from 'sharp';
import { MAX_EXPORT_PIXELS, scaledSize } from './drawingSize.ts';
import { type DrawingStroke, outlineOf, strokePath } from './strokeOutline.ts';

export type { DrawingPoint, DrawingStroke } from './strokeOutline.ts';
export { strokePath };

export type Drawing = {
  width: number;
  height: number;
  /** A hex colour, or 'transparent'. */
  background: string;
  strokes: DrawingStroke[];
};

export type DrawingOutput = {
  /** Pixels per drawing pixel (0.25 to 4). */
  scale?: number;
  /** Leave the background out. */
  transparent?: boolean;
};

const shownBackground = (d: Drawing, out: DrawingOutput) =>
  !out.transparent && d.background !== 'transparent' ? d.background : undefined;

const COMPOSITE = {
  pen: 'source-over',
  highlighter: 'multiply',
  eraser: 'destination-out',
} as const satisfies Record<DrawingStroke['tool'], GlobalCompositeOperation>;

/** Fills each stroke's outline on `ctx` (scaled to drawing pixels already). */
function fillStrokes(ctx: SKRSContext2D, strokes: readonly DrawingStroke[]) {
  for (const stroke of strokes) {
    const xy = outlineOf(stroke);
    if (!xy.length) continue;
    ctx.globalAlpha = stroke.opacity;
    ctx.globalCompositeOperation = COMPOSITE[stroke.tool];
    ctx.fillStyle = stroke.color;
    ctx.beginPath();
    ctx.moveTo(xy[0]!, xy[1]!);
    for (let i = 2; i < xy.length; i += 2) ctx.lineTo(xy[i]!, xy[i + 1]!);
    ctx.closePath();
    ctx.fill();
  }
  ctx.globalAlpha = 1;
  ctx.globalCompositeOperation = 'source-over';
}

/**
 * The drawing's strokes on a transparent canvas of their own, `scale` pixels a drawing pixel
 * (so an eraser cuts only strokes): what a PNG export and a Canvas page draw.
 */
export function strokesCanvas(d: Drawing, scale: number) {
  const { width, height } = scaledSize(d, scale);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  fillStrokes(ctx, d.strokes);
  return canvas;
}

/** The drawing as PNG bytes, at `scale`. */
export async function drawingPng(d: Drawing, out: DrawingOutput = {}): Promise<Buffer> {
  const scale = out.scale ?? 1;
  const bg = shownBackground(d, out);
  // Pens alone compose the same over the background as on a layer of their own: one canvas.
  const layered = d.strokes.some((s) => s.tool !== 'pen');
  const { width, height } = scaledSize(d, scale);
  const page = layered ? createCanvas(width, height) : strokesCanvasOver(d, scale, bg);
  if (layered) {
    const ctx = page.getContext('2d');
    if (bg) {
      ctx.fillStyle = bg;
      ctx.fillRect(0, 0, width, height);
    }
    ctx.drawImage(strokesCanvas(d, scale), 0, 0);
  }
  return encodePng(page);
}

/**
 * PNG bytes of a canvas through sharp (libspng) at zlib level 3: a third of Skia's encoding
 * time for a drawing, and still a smaller file (level 6 takes twice as long for 5% less).
 * Skia's pixels are premultiplied; sharp divides the alpha back out, as Skia's encoder does.
 */
const encodePng = (canvas: Canvas) =>
  sharp(canvas.data(), {
    raw: { width: canvas.width, height: canvas.height, channels: 4, premultiplied: true },
  })
    .png({ compressionLevel: 3 })
    .toBuffer();

/** A canvas with the background, then the strokes drawn straight on it. */
function strokesCanvasOver(d: Drawing, scale: number, bg: string | undefined) {
  const { width, height } = scaledSize(d, scale);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  if (bg) {
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, width, height);
  }
  ctx.scale(scale, scale);
  fillStrokes(ctx, d.strokes);
  return canvas;
}

const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The drawing as an SVG document, at `scale`: the same outlines as the PNG. An eraser masks
 * every stroke before it; a highlighter blends by multiplying, inside the strokes' own group.
 */
export function drawingSvg(d: Drawing, out: DrawingOutput = {}): string {
  const { width, height } = scaledSize(d, out.scale ?? 1);
  const defs: string[] = [];
  let strokes = '';
  for (const [i, stroke] of d.strokes.entries()) {
    const path = strokePath(stroke);
    if (!path) continue;
    const opacity = stroke.opacity === 1 ? '' : ` fill-opacity="${stroke.opacity}"`;
    if (stroke.tool === 'eraser') {
      // Everything drawn so far, seen through a mask that hides the eraser's outline.
      const id = `e${i}`;
      defs.push(
        `<mask id="${id}" maskUnits="userSpaceOnUse" x="0" y="0" width="${d.width}" height="${d.height}"><rect width="${d.width}" height="${d.height}" fill="#fff"/><path d="${path}" fill="#000"${opacity}/></mask>`,
      );
      strokes = `<g mask="url(#${id})">${strokes}</g>`;
      continue;
    }
    const blend = stroke.tool === 'highlighter' ? ' style="mix-blend-mode:multiply"' : '';
    strokes += `<path d="${path}" fill="${escapeXml(stroke.color)}"${opacity}${blend}/>`;
  }
  const bg = shownBackground(d, out);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${d.width} ${d.height}">`,
    defs.length ? `<defs>${defs.join('')}</defs>` : '',
    bg ? `<rect width="${d.width}" height="${d.height}" fill="${escapeXml(bg)}"/>` : '',
    `<g style="isolation:isolate">${strokes}</g>`,
    '</svg>',
  ].join('');
}

/**
 * A drawing whose strokes are still the JSON text stored: a thread parses it itself, which
 * costs less than the structured clone of 200,000 small arrays handed over parsed.
 */
export type DrawingText = Omit<Drawing, 'strokes'> & { strokes_json: string };

export type DrawingFileRequest = {
  drawing: Drawing | DrawingText;
  format: 'png' | 'svg';
  scale: number;
  transparent: boolean;
  /** A PNG over this many bytes also gets a preview PNG, `side` pixels on its long side. */
  preview?: { above: number; side: number };
};

export type DrawingFile = {
  bytes: Buffer;
  width: number;
  height: number;
  /** A smaller PNG, when the PNG exceeded `preview.above`. */
  preview?: Buffer;
};

/** The drawing as a PNG or SVG file (what a render thread answers for an export). */
export async function drawingFile(req: DrawingFileRequest): Promise<DrawingFile> {
  const { scale, transparent } = req;
  const drawing: Drawing =
    'strokes_json' in req.drawing
      ? { ...req.drawing, strokes: JSON.parse(req.drawing.strokes_json) as DrawingStroke[] }
      : req.drawing;
  const size = scaledSize(drawing, scale);
  if (req.format === 'png' && size.width * size.height > MAX_EXPORT_PIXELS)
    throw new RangeError(
      `a ${size.width} × ${size.height} PNG is over ${MAX_EXPORT_PIXELS} pixels; it is not drawn`,
    );
  if (req.format === 'svg')
    return { ...size, bytes: Buffer.from(drawingSvg(drawing, { scale, transparent })) };
  const bytes = await drawingPng(drawing, { scale, transparent });
  if (!req.preview || bytes.length <= req.preview.above) return { ...size, bytes };
  const small = req.preview.side / Math.max(drawing.width, drawing.height);
  return { ...size, bytes, preview: await drawingPng(drawing, { scale: small, transparent }) };
}
