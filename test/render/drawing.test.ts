// Drawings rendered (render/drawing.ts), checked on pixels: a stroke's colour on its path and
// nothing outside its outline, pressure widening the outline, a highlighter multiplying and
// an eraser cutting strokes but not the background, the output's scale and transparency; and
// the SVG, rasterised by sharp, against the PNG: the same geometry, under 1% of pixels apart.
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { Stroke } from '../../core/drawings/schema.ts';
import { type Drawing, drawingFile, drawingPng, drawingSvg } from '../../render/drawing.ts';
import { MAX_EXPORT_PIXELS } from '../../render/drawingSize.ts';

const stroke = (fields: Record<string, unknown>) => Stroke.parse(fields);
/** `n` points along f(t), t from 0 to 1. */
const along = (n: number, f: (t: number) => [number, number, number?]) =>
  Array.from({ length: n }, (_, i) => f(i / (n - 1))) as [number, number, number?][];

const pixel = (img: PNG, x: number, y: number) => {
  const i = (img.width * y + x) * 4;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!, img.data[i + 3]!];
};
const png = async (d: Drawing, out = {}) => PNG.sync.read(await drawingPng(d, out));

/** How many pixels of column `x` differ from white. */
const inkedInColumn = (img: PNG, x: number) => {
  let n = 0;
  for (let y = 0; y < img.height; y++) if (pixel(img, x, y)[0]! < 200) n++;
  return n;
};

describe('a drawing as PNG', () => {
  const line = stroke({
    points: along(40, (t) => [20 + 360 * t, 100]),
    color: '#ff0000',
    size: 20,
  });
  const base: Drawing = { width: 400, height: 200, background: '#ffffff', strokes: [line] };

  it('puts a stroke where its points are, in its colour, and nothing outside its outline', async () => {
    const img = await png(base);
    expect(pixel(img, 200, 100)).toEqual([255, 0, 0, 255]);
    // Beyond its half-width (10 px, thinned by simulated pressure): the background.
    expect(pixel(img, 200, 125)).toEqual([255, 255, 255, 255]);
    expect(pixel(img, 200, 75)).toEqual([255, 255, 255, 255]);
    expect(pixel(img, 395, 100)).toEqual([255, 255, 255, 255]);
  });

  it('widens the outline with pressure', async () => {
    const pressed = stroke({
      points: along(40, (t) => [20 + 360 * t, 100, 0.05 + 0.95 * t]),
      color: '#000000',
      size: 40,
      thinning: 0.9,
      streamline: 0,
    });
    const img = await png({ ...base, strokes: [pressed] });
    const thin = inkedInColumn(img, 60);
    const thick = inkedInColumn(img, 340);
    expect(thin).toBeGreaterThan(0);
    expect(thick).toBeGreaterThan(thin * 2);
  });

  it('multiplies a highlighter with the strokes under it; an eraser cuts strokes, not the background', async () => {
    const highlighter = stroke({
      points: along(20, (t) => [200, 20 + 160 * t]),
      color: '#ffff00',
      size: 30,
      tool: 'highlighter',
    });
    const eraser = stroke({
      points: along(20, (t) => [100, 20 + 160 * t]),
      size: 30,
      tool: 'eraser',
    });
    const img = await png({ ...base, strokes: [line, highlighter, eraser] });
    // Red under yellow, multiplied: red. Yellow on the white background: yellow.
    expect(pixel(img, 200, 100)).toEqual([255, 0, 0, 255]);
    expect(pixel(img, 200, 40)).toEqual([255, 255, 0, 255]);
    // Where the eraser passed, the red line is gone and the background shows.
    expect(pixel(img, 100, 100)).toEqual([255, 255, 255, 255]);
    expect(pixel(img, 300, 100)).toEqual([255, 0, 0, 255]);
  });

  it('scales, and leaves the background out when asked', async () => {
    const img = await png(base, { scale: 0.5, transparent: true });
    expect([img.width, img.height]).toEqual([200, 100]);
    expect(pixel(img, 2, 2)[3]).toBe(0);
    expect(pixel(img, 100, 50)).toEqual([255, 0, 0, 255]);
  });

  it('keeps a see-through stroke its own colour on transparency (alpha not multiplied in twice)', async () => {
    const faint = { ...line, color: '#c86432', opacity: 0.5 };
    const img = await png({ ...base, strokes: [faint] }, { transparent: true });
    const [r, g, b, a] = pixel(img, 200, 100);
    expect(a).toBeGreaterThanOrEqual(127);
    expect(a).toBeLessThanOrEqual(128);
    // Premultiplied pixels written as they are would read half as bright: (100, 50, 25).
    for (const [got, want] of [
      [r, 200],
      [g, 100],
      [b, 50],
    ])
      expect(Math.abs(got! - want!)).toBeLessThanOrEqual(2);
  });

  it('draws pens alone straight over the background as a layered drawing would', async () => {
    // A white highlighter (multiplying by one) makes the drawing layered, changing no pixel.
    const none = stroke({ points: [[5, 5]], color: '#ffffff', size: 4, tool: 'highlighter' });
    const faint = { ...line, opacity: 0.4 };
    const straight = await drawingPng({ ...base, strokes: [faint] });
    const layered = await drawingPng({ ...base, strokes: [faint, none] });
    const a = PNG.sync.read(straight);
    const b = PNG.sync.read(layered);
    expect(pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0.01 })).toBe(0);
  });
});

describe('a drawing as a file (what a render thread answers)', () => {
  const line = stroke({ points: along(20, (t) => [10 + 180 * t, 50]), color: '#0000ff', size: 10 });
  const d: Drawing = { width: 200, height: 100, background: '#ffffff', strokes: [line] };

  it('draws strokes handed over as their JSON text as it draws them parsed', async () => {
    const { strokes, ...head } = d;
    const fromText = await drawingFile({
      drawing: { ...head, strokes_json: JSON.stringify(strokes) },
      format: 'png',
      scale: 1,
      transparent: false,
    });
    expect(fromText.bytes.equals(await drawingPng(d))).toBe(true);
    expect([fromText.width, fromText.height]).toEqual([200, 100]);
  });

  it('adds a preview when the PNG is over the size given, its long side as asked', async () => {
    const req = { drawing: d, format: 'png' as const, scale: 2, transparent: false };
    const small = await drawingFile({ ...req, preview: { above: 1_000_000, side: 50 } });
    expect(small.preview).toBeUndefined();
    const big = await drawingFile({ ...req, preview: { above: 100, side: 50 } });
    const preview = await sharp(big.preview!).metadata();
    expect([preview.width, preview.height]).toEqual([50, 25]);
  });

  it('refuses a PNG over MAX_EXPORT_PIXELS, while an SVG of that size is only text', async () => {
    const wide: Drawing = { ...d, width: 4096, height: 4096 };
    const req = { drawing: wide, scale: 1.01, transparent: false };
    await expect(drawingFile({ ...req, format: 'png' })).rejects.toThrow(/not drawn/);
    const svg = await drawingFile({ ...req, format: 'svg' });
    expect(svg.width * svg.height).toBeGreaterThan(MAX_EXPORT_PIXELS);
  });
});

describe('a drawing as SVG', () => {
  it('has the geometry of the PNG: rasterised, under 1% of pixels differ', async () => {
    const d: Drawing = {
      width: 480,
      height: 320,
      background: '#fdf6e3',
      strokes: [
        stroke({
          points: along(60, (t) => [40 + 400 * t, 160 + 90 * Math.sin(t * 7), 0.2 + 0.8 * t]),
          color: '#1d4ed8',
          size: 18,
        }),
        stroke({
          points: along(30, (t) => [60 + 360 * t, 70]),
          color: '#facc15',
          size: 40,
          tool: 'highlighter',
          opacity: 0.8,
        }),
        stroke({ points: along(20, (t) => [240, 30 + 260 * t]), size: 30, tool: 'eraser' }),
        stroke({
          points: along(12, (t) => [60 + 150 * t, 280]),
          color: '#dc2626',
          size: 12,
          taper_end: 60,
        }),
      ],
    };
    const fromPng = PNG.sync.read(await drawingPng(d));
    const svg = drawingSvg(d);
    expect(svg.startsWith('<svg')).toBe(true);
    const fromSvg = PNG.sync.read(await sharp(Buffer.from(svg)).ensureAlpha().png().toBuffer());
    expect([fromSvg.width, fromSvg.height]).toEqual([fromPng.width, fromPng.height]);
    const differing = pixelmatch(fromPng.data, fromSvg.data, undefined, 480, 320, {
      threshold: 0.1,
    });
    expect(differing / (480 * 320)).toBeLessThan(0.01);
  });
});
