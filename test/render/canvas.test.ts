// The Canvas renderer checked on pixels: targeted probes (a shape's colour, wrapped text
// inside its frame, images keeping their aspect ratio, rotation about the frame's centre) and
// a reference image compared with a tolerance.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { Layer, type LayerInput } from '../../core/designs/schema.ts';
import { renderPage, renderPng } from '../../render/canvas.ts';
import { breakablePieces, wrapText } from '../../render/text.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

async function render(
  layers: LayerInput[],
  opts: { size?: number; images?: Map<string, Buffer> } = {},
) {
  const size = opts.size ?? 400;
  const png = await renderPage({
    width: size,
    height: size,
    bg: '#ffffff',
    layers: layers.map((l) => Layer.parse(l)),
    images: opts.images ?? new Map(),
  });
  return PNG.sync.read(png);
}

const pixel = (img: PNG, x: number, y: number) => {
  const i = (img.width * Math.round(y) + Math.round(x)) * 4;
  return [img.data[i], img.data[i + 1], img.data[i + 2]];
};

/** The smallest box holding every pixel that is not the white background. */
function inkBox(img: PNG) {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1];
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const [r, g, b] = pixel(img, x, y);
      if (r! < 250 || g! < 250 || b! < 250) {
        x0 = Math.min(x0, x);
        y0 = Math.min(y0, y);
        x1 = Math.max(x1, x);
        y1 = Math.max(y1, y);
      }
    }
  return { x0, y0, x1, y1 };
}

const halves = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#ff0000' } })
    .composite([
      {
        input: { create: { width: width / 2, height, channels: 3, background: '#0000ff' } },
        left: width / 2,
        top: 0,
      },
    ])
    .png()
    .toBuffer();

describe('shapes', () => {
  it('fills a rect, an ellipse and strokes a line in their frames', async () => {
    const img = await render([
      { kind: 'shape', shape: 'rect', x: 20, y: 20, w: 100, h: 60, fill: '#ff0000' },
      { kind: 'shape', shape: 'ellipse', x: 200, y: 200, w: 100, h: 100, fill: '#00ff00' },
      {
        kind: 'shape',
        shape: 'line',
        x: 20,
        y: 300,
        w: 100,
        h: 0,
        stroke: '#0000ff',
        stroke_width: 6,
      },
    ]);
    expect(pixel(img, 70, 50)).toEqual([255, 0, 0]);
    expect(pixel(img, 250, 250)).toEqual([0, 255, 0]);
    expect(pixel(img, 203, 203)).toEqual([255, 255, 255]); // outside the ellipse, inside its box
    expect(pixel(img, 70, 300)).toEqual([0, 0, 255]);
  });

  it('fades a layer by its opacity', async () => {
    const img = await render([
      { kind: 'shape', shape: 'rect', x: 0, y: 0, w: 100, h: 100, fill: '#000000', opacity: 0.5 },
    ]);
    const [r] = pixel(img, 50, 50);
    expect(r).toBeGreaterThan(120);
    expect(r).toBeLessThan(136);
  });
});

describe('rotation', () => {
  it('turns a layer around its frame centre', async () => {
    const bar = {
      kind: 'shape',
      shape: 'rect',
      x: 100,
      y: 190,
      w: 200,
      h: 20,
      fill: '#000000',
    } as const;
    const flat = await render([bar]);
    expect(pixel(flat, 280, 200)).toEqual([0, 0, 0]);
    expect(pixel(flat, 200, 120)).toEqual([255, 255, 255]);
    const turned = await render([{ ...bar, rotation: 90 }]);
    expect(pixel(turned, 280, 200)).toEqual([255, 255, 255]);
    expect(pixel(turned, 200, 120)).toEqual([0, 0, 0]);
    expect(pixel(turned, 200, 200)).toEqual([0, 0, 0]);
  });
});

describe('text', () => {
  const paragraph =
    'Wrapped text stays inside its frame: every word on a line that fits, 🚀 emoji included.';

  it('wraps at word boundaries inside w and is cut at h', async () => {
    const frame = { x: 50, y: 40, w: 200 };
    const img = await render([
      { kind: 'text', text: paragraph, size: 28, color: '#000000', ...frame },
    ]);
    const box = inkBox(img);
    expect(box.x0).toBeGreaterThanOrEqual(frame.x);
    expect(box.x1).toBeLessThanOrEqual(frame.x + frame.w);
    expect(box.y1 - box.y0).toBeGreaterThan(28 * 3); // several lines
    const cut = await render([
      { kind: 'text', text: paragraph, size: 28, color: '#000000', ...frame, h: 60 },
    ]);
    expect(inkBox(cut).y1).toBeLessThan(frame.y + 60);
  });

  it('honours align and line_height', async () => {
    const base = {
      kind: 'text',
      text: 'Hi',
      size: 40,
      color: '#000000',
      x: 0,
      y: 0,
      w: 400,
    } as const;
    const left = inkBox(await render([base]));
    const right = inkBox(await render([{ ...base, align: 'right' }]));
    const center = inkBox(await render([{ ...base, align: 'center' }]));
    expect(left.x0).toBeLessThan(20);
    expect(right.x1).toBeGreaterThan(380);
    expect(Math.abs((center.x0 + center.x1) / 2 - 200)).toBeLessThan(4);
    const two = (lh: number) => render([{ ...base, text: 'A\nB', line_height: lh }]).then(inkBox);
    expect((await two(2)).y1 - (await two(1)).y1).toBeGreaterThan(30);
  });

  it('draws colour emoji, skin tones and flags included, as one glyph each', async () => {
    const img = await render([
      { kind: 'text', text: '😀👍🏽🇫🇷', size: 80, color: '#000000', x: 10, y: 10, w: 380 },
    ]);
    // Each emoji fills an 80 px cell in its own colours: 😀 yellow, 👍🏽 tan, 🇫🇷 blue and red.
    const colours = (x0: number) => {
      const seen = { yellow: 0, tan: 0, blue: 0, red: 0 };
      for (let y = 10; y < 100; y += 2)
        for (let x = x0; x < x0 + 80; x += 2) {
          const [r = 0, g = 0, b = 0] = pixel(img, x, y);
          if (r > 200 && g > 150 && b < 90) seen.yellow++;
          if (r > 180 && g > 140 && g < 200 && b > 90 && b < 160) seen.tan++;
          if (b > 120 && r < 60) seen.blue++;
          if (r > 200 && g < 80 && b < 100) seen.red++;
        }
      return seen;
    };
    expect(colours(10).yellow).toBeGreaterThan(300);
    expect(colours(90).tan).toBeGreaterThan(200);
    const flag = colours(170);
    expect(flag.blue).toBeGreaterThan(100);
    expect(flag.red).toBeGreaterThan(100);
    // Nothing is drawn past the three glyphs: the modifier and the flag's halves compose.
    expect(inkBox(img).x1).toBeLessThan(10 + 3 * 80 + 8);
  });

  it('breaks lines between words, never inside a grapheme', () => {
    const measure = (t: string) => [...new Intl.Segmenter().segment(t)].length * 10;
    expect(wrapText('one two three', 70, measure)).toEqual(['one two', 'three']);
    expect(wrapText('abcdefghij', 40, measure)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('👍🏽👍🏽👍🏽', 20, measure)).toEqual(['👍🏽👍🏽', '👍🏽']);
    expect(wrapText('first\nsecond', 1000, measure)).toEqual(['first', 'second']);
  });

  it('measures a long line a few times over, not once per word (10 such layers stalled for seconds)', () => {
    let measured = 0;
    const measure = (t: string) => {
      measured += t.length;
      return t.length;
    };
    const line = 'word '.repeat(1_000).trim();
    expect(wrapText(line, 10_000, measure)).toEqual([line]);
    // One word at a time measured ~5 million characters here.
    expect(measured).toBeLessThan(line.length * 40);
    measured = 0;
    const word = 'x'.repeat(5_000);
    expect(wrapText(word, 2_500, measure)).toEqual([word.slice(0, 2_500), word.slice(2_500)]);
    expect(measured).toBeLessThan(word.length * 40);
  });

  it('breaks where adding one word at a time would', () => {
    /** The rule as first written: one word, then one grapheme, at a time. */
    function oneAtATime(text: string, width: number, measure: (t: string) => number) {
      const lines: string[] = [];
      for (const paragraph of text.split('\n')) {
        let line = '';
        for (const segment of breakablePieces(paragraph)) {
          if (!line) line = segment.trimStart();
          else if (measure((line + segment).trimEnd()) <= width) line += segment;
          else {
            lines.push(line.trimEnd());
            line = segment.trimStart();
          }
          if (line && measure(line.trimEnd()) > width) {
            let current = '';
            const pieces: string[] = [];
            for (const g of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(
              line.trimEnd(),
            )) {
              if (current && measure(current + g.segment) > width) {
                pieces.push(current);
                current = g.segment;
              } else current += g.segment;
            }
            if (current) pieces.push(current);
            lines.push(...pieces.slice(0, -1));
            line = pieces.at(-1) ?? '';
          }
        }
        lines.push(line.trimEnd());
      }
      return lines;
    }
    // Widths that differ by character, as a font's do; a fixed seed keeps the cases stable.
    const measure = (t: string) => [...t].reduce((w, c) => w + (c.codePointAt(0)! % 7) + 3, 0);
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const pieces = [
      'a',
      'bb',
      'word',
      'longerword',
      ' ',
      '  ',
      '\n',
      '👍🏽',
      '漢字',
      'x'.repeat(30),
    ];
    for (let i = 0; i < 300; i++) {
      const text = Array.from({ length: random(60) }, () => pieces[random(pieces.length)]).join(
        random(2) ? ' ' : '',
      );
      const width = 5 + random(200);
      expect(wrapText(text, width, measure), JSON.stringify({ text, width })).toEqual(
        oneAtATime(text, width, measure),
      );
    }
  });
});

describe('images', () => {
  it('keep their aspect ratio: cover takes the middle, contain letterboxes', async () => {
    const images = new Map([['7', await halves(200, 100)]]);
    const frame = { kind: 'image', asset_id: '7', x: 100, y: 100, w: 100, h: 100 } as const;
    const cover = await render([{ ...frame, fit: 'cover' }], { images });
    // The middle 100×100 of a 200×100 red|blue image: red on the left, blue on the right.
    expect(pixel(cover, 110, 150)).toEqual([255, 0, 0]);
    expect(pixel(cover, 190, 150)).toEqual([0, 0, 255]);
    expect(pixel(cover, 150, 105)).not.toEqual([255, 255, 255]);
    const contain = await render([{ ...frame, fit: 'contain' }], { images });
    // The whole image at 100×50, centred: white above and below.
    expect(pixel(contain, 150, 110)).toEqual([255, 255, 255]);
    expect(pixel(contain, 120, 150)).toEqual([255, 0, 0]);
    expect(pixel(contain, 180, 150)).toEqual([0, 0, 255]);
    expect(pixel(contain, 150, 190)).toEqual([255, 255, 255]);
  });
});

describe('a reference design', () => {
  it('renders as the committed reference, within a small tolerance', async () => {
    const img = await render(
      [
        { kind: 'shape', shape: 'rect', x: 0, y: 0, w: 400, h: 160, fill: '#2e86ab' },
        { kind: 'shape', shape: 'ellipse', x: 300, y: 280, w: 80, h: 80, fill: '#e4572e' },
        {
          kind: 'text',
          text: 'Launch week, calmer',
          x: 24,
          y: 190,
          w: 352,
          size: 40,
          weight: 'bold',
          font: 'Playfair Display',
          color: '#1b1b1b',
        },
        {
          kind: 'doodle',
          x: 30,
          y: 320,
          w: 200,
          strokes: [
            {
              points: [
                [0, 0],
                [40, 20],
                [80, 0],
                [120, 20],
              ],
              width: 8,
              color: '#333333',
            },
          ],
        },
      ],
      { size: 400 },
    );
    const reference = PNG.sync.read(readFileSync(path.join(HERE, 'reference/launch.png')));
    const diff = pixelmatch(img.data, reference.data, undefined, 400, 400, { threshold: 0.1 });
    expect(diff).toBeLessThan(400 * 400 * 0.005);
  });
});

describe('renderPng with cut (video stills)', () => {
  const cut = (layers: LayerInput[]) =>
    renderPng({
      width: 400,
      height: 300,
      bg: '#00000000',
      layers: layers.map((l) => Layer.parse(l)),
      images: new Map(),
      cut: true,
    });

  it('answers only the drawn pixels and where they sit, pixel for pixel', async () => {
    const { png, box } = await cut([
      { kind: 'shape', shape: 'rect', x: 40, y: 50, w: 100, h: 60, fill: '#ff0000' },
      { kind: 'shape', shape: 'rect', x: 300, y: 200, w: 20, h: 30, fill: '#0000ff' },
    ]);
    expect(box).toEqual({ left: 40, top: 50, width: 280, height: 180 });
    const img = PNG.sync.read(png);
    expect([img.width, img.height]).toEqual([280, 180]);
    expect([...img.data.subarray(0, 4)]).toEqual([255, 0, 0, 255]);
    const last = (img.width * img.height - 1) * 4;
    expect([...img.data.subarray(last, last + 4)]).toEqual([0, 0, 255, 255]);
    // Between the two shapes nothing is drawn.
    const gap = (img.width * 100 + 150) * 4;
    expect(img.data[gap + 3]).toBe(0);
  });

  it('answers an empty box when nothing shows', async () => {
    const { png, box } = await cut([
      { kind: 'shape', shape: 'rect', x: 40, y: 50, w: 100, h: 60, fill: '#ff0000', opacity: 0 },
    ]);
    expect(box).toEqual({ left: 0, top: 0, width: 0, height: 0 });
    expect(png.length).toBe(0);
  });
});
