// Text fitting (render/textFit.ts) checked on pixels: in each `fit` mode the inked box of a
// text stays inside its frame, and the rows below the last line are bare, so no line is cut
// through its glyphs; shrink finds a size that fits, ellipsis ends at a word with "…", and
// text that does not fit (clip, or shrink at min_size) is reported as a warning by cid.
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { Layer, type LayerInput } from '../../core/designs/schema.ts';
import { renderPng } from '../../render/canvas.ts';
import { fitText } from '../../render/textFit.ts';

const FRAME = { x: 100, y: 100, w: 600, h: 230 };
const INK = { above: () => 0.7, below: 0.3 };
const LONG =
  'Senior TypeScript Engineer for our platform team in Berlin, remote friendly, with ownership across the whole stack and a calm on-call rota';

const text = (fields: Partial<LayerInput & { kind: 'text' }>) =>
  Layer.parse({
    kind: 'text',
    cid: 'headline',
    ...FRAME,
    text: LONG,
    size: 72,
    font: 'Roboto',
    weight: 'bold',
    color: '#000000',
    ...fields,
  });

async function draw(layer: Layer) {
  const { png, warnings } = await renderPng({
    width: 800,
    height: 600,
    bg: '#ffffff',
    layers: [layer],
    images: new Map(),
  });
  return { img: PNG.sync.read(png), warnings };
}

/** Rows and columns with a pixel darker than light grey. */
function inkBox(img: PNG) {
  let [top, bottom, left, right] = [img.height, -1, img.width, -1];
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++)
      if (img.data[(y * img.width + x) * 4]! < 200) {
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
  return { top, bottom, left, right };
}

const inkedRow = (img: PNG, y: number) => {
  for (let x = 0; x < img.width; x++) if (img.data[(y * img.width + x) * 4]! < 200) return true;
  return false;
};

function expectInsideFrame(img: PNG) {
  const ink = inkBox(img);
  expect(ink.top).toBeGreaterThanOrEqual(FRAME.y - 1);
  expect(ink.left).toBeGreaterThanOrEqual(FRAME.x - 2);
  expect(ink.right).toBeLessThanOrEqual(FRAME.x + FRAME.w + 2);
  expect(ink.bottom).toBeLessThanOrEqual(FRAME.y + FRAME.h);
  // The row just below the frame, and every row below it, is bare: no glyph runs on.
  for (let y = FRAME.y + FRAME.h + 1; y < img.height; y++)
    expect(inkedRow(img, y), `row ${y}`).toBe(false);
  return ink;
}

describe('scripts', () => {
  it('draws accented Latin, Cyrillic and Greek from the fonts, not missing-glyph boxes', async () => {
    // A missing glyph falls back to the emoji font's 1-em box: three of them ink 300 px wide.
    for (const sample of ['ąęż', 'его', 'λιο']) {
      const { img } = await draw(
        text({ text: sample, size: 100, font: 'Inter', weight: 'normal', h: 150, w: 600 }),
      );
      const ink = inkBox(img);
      expect(ink.right - ink.left, sample).toBeLessThan(200);
    }
  });
});

describe('fit', () => {
  it('clip shows the whole lines that fit, none cut through its glyphs, and warns', async () => {
    const { img, warnings } = await draw(text({ fit: 'clip' }));
    expectInsideFrame(img);
    expect(warnings).toEqual([{ code: 'text_overflow', cid: 'headline' }]);
  });

  it('a frame shorter than one line shows nothing rather than half a line', async () => {
    const { img, warnings } = await draw(text({ fit: 'clip', h: 50 }));
    expect(inkBox(img).bottom).toBe(-1);
    expect(warnings).toHaveLength(1);
  });

  it('shrink lowers the size until the text fits, without a warning', async () => {
    const layer = text({ fit: 'shrink' });
    const { img, warnings } = await draw(layer);
    const ink = expectInsideFrame(img);
    expect(warnings).toEqual([]);
    // It uses the frame: the last line ends in the frame's bottom third.
    expect(ink.bottom).toBeGreaterThan(FRAME.y + (FRAME.h * 2) / 3);
    const measure = (t: string, size: number) => t.length * size * 0.5;
    const fitted = fitText({ ...layer, text: LONG } as never, measure, INK);
    expect(fitted.size).toBeLessThan(72);
    expect(fitted.overflow).toBe(false);
  });

  it('shrink never breaks a word across lines when a smaller size keeps it whole', () => {
    const measure = (t: string, size: number) => t.length * size * 0.6;
    const fitted = fitText(
      {
        text: 'Internationalisation',
        w: 400,
        h: 200,
        size: 80,
        min_size: 20,
        line_height: 1.2,
        fit: 'shrink',
        valign: 'top',
      },
      measure,
      INK,
    );
    expect(fitted.lines).toEqual(['Internationalisation']);
    expect(fitted.size * 0.6 * 20).toBeLessThanOrEqual(400);
  });

  it('keeps tall capitals and accents inside the frame at a tight line height', async () => {
    for (const fit of ['clip', 'shrink'] as const) {
      const { img } = await draw(
        text({ fit, font: 'Bebas Neue', size: 150, line_height: 0.9, text: 'ÅÉÎ HELLO ÅÉÎ ÂÊ' }),
      );
      expectInsideFrame(img);
    }
  });

  it('shrink breaks a word wider than the frame at every size rather than shrinking to min_size', () => {
    const measure = (t: string, size: number) => t.length * size * 0.5;
    const fitted = fitText(
      {
        text: 'Read more at https://example.com/blog/a-very-long-path-that-never-breaks',
        w: 600,
        h: 400,
        size: 60,
        line_height: 1.2,
        fit: 'shrink',
        valign: 'top',
      },
      measure,
      INK,
    );
    expect(fitted.size).toBe(60);
    expect(fitted.overflow).toBe(false);
  });

  it('shrink that reaches min_size shows what fits and warns', async () => {
    const { img, warnings } = await draw(
      text({ fit: 'shrink', min_size: 60, text: `${LONG} ${LONG}` }),
    );
    expectInsideFrame(img);
    expect(warnings).toEqual([{ code: 'text_overflow', cid: 'headline' }]);
  });

  it('ellipsis ends the last line that fits at a word with "…", without a warning', async () => {
    const layer = text({ fit: 'ellipsis' });
    const { img, warnings } = await draw(layer);
    expectInsideFrame(img);
    expect(warnings).toEqual([]);
    const measure = (t: string, size: number) => t.length * size * 0.55;
    const fitted = fitText(layer as never, measure, INK);
    const last = fitted.lines.at(-1)!;
    expect(last.endsWith('…')).toBe(true);
    // Cut at a word: what precedes "…" is a whole word of the text.
    const word = last.slice(0, -1).split(' ').at(-1)!;
    expect(LONG.split(/[\s,]+/)).toContain(word.replace(/,$/, ''));
  });

  it('ellipsis measures a line of thousands of zero-width characters a few dozen times, not once each', () => {
    let calls = 0;
    const measure = (t: string, size: number) => {
      calls++;
      return t.replace(/\u200B/g, '').length * size * 0.5;
    };
    const fitted = fitText(
      {
        text: `${'x'.repeat(19)}${'\u200B'.repeat(4960)}xxxx`,
        w: 1080,
        h: 130,
        size: 100,
        line_height: 1.2,
        fit: 'ellipsis',
        valign: 'top',
      },
      measure,
      INK,
    );
    expect(fitted.lines).toHaveLength(1);
    expect(fitted.lines[0]!.endsWith('…')).toBe(true);
    expect(calls).toBeLessThan(300);
  });

  it('valign bottom sets the lines on the frame bottom; text that fits is not moved by fit', async () => {
    const short = { text: 'Ship it', h: 300 };
    const top = inkBox((await draw(text({ ...short, fit: 'shrink' }))).img);
    const bottom = inkBox((await draw(text({ ...short, fit: 'shrink', valign: 'bottom' }))).img);
    expect(top.top).toBeLessThan(FRAME.y + 30);
    expect(bottom.bottom).toBeGreaterThan(FRAME.y + 300 - 40);
    expect(bottom.bottom).toBeLessThanOrEqual(FRAME.y + 300);
  });

  it('keeps punctuation with its word when wrapping', () => {
    const measure = (t: string, size: number) => t.length * size * 0.5;
    const fitted = fitText(
      {
        text: 'Berlin, remote',
        w: 8 * 18,
        size: 36,
        line_height: 1.2,
        fit: 'clip',
        valign: 'top',
      },
      measure,
      INK,
    );
    expect(fitted.lines).toEqual(['Berlin,', 'remote']);
  });
});
