// Fitting a text layer into its frame (render/layout.ts TextLayer `fit`): which size it is
// drawn at, which whole lines show, and whether any text was left out. A frame's height holds
// whole lines only: a line shows when its glyphs, descenders included, end inside the frame,
// so no line is ever cut through its letters.
//
// `shrink` searches a ladder of sizes (2% steps from the layer's size down to `min_size`) by
// bisection for the largest at which the text fits without breaking a word. Widths scale
// with the size, so the renderer measures each candidate line once, at a reference size,
// and scales it (render/canvas.ts): the sizes of a search share their measurements, and a
// render of the same copy again measures nothing.
import { breakablePieces, wrapLines } from './text.ts';

export type FitLayer = {
  text: string;
  w: number;
  h?: number | undefined;
  size: number;
  min_size?: number | undefined;
  line_height: number;
  fit: 'shrink' | 'clip' | 'ellipsis';
  valign: 'top' | 'middle' | 'bottom';
};

/**
 * How far glyphs reach from a line's middle, per pixel of size: above, for a given line
 * (accents and tall capitals reach higher than most), and below, for the font (its deepest
 * descender).
 */
export type InkExtent = { above: (line: string) => number; below: number };

/** The width of `text` at `size` pixels. */
export type MeasureAt = (text: string, size: number) => number;

export type FittedText = {
  size: number;
  lines: string[];
  lineHeight: number;
  /** Where the first line's box starts, below the frame's top (valign, headroom). */
  top: number;
  /** How tall the shown lines stand. */
  height: number;
  /** Text that exists but is not shown (clip, or shrink that reached min_size). */
  overflow: boolean;
  /** A word wider than the frame was broken across lines (shrink could not keep it whole). */
  broken: boolean;
};

const ELLIPSIS = '…';
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * How far the first line moves down so its glyphs start inside the frame: a line's box
 * (`lineHeight` tall) holds its letters unless the line height is tight or the line tall.
 */
const headroom = (first: string | undefined, lineHeight: number, size: number, ink: InkExtent) =>
  first === undefined ? 0 : Math.max(0, ink.above(first) * size - lineHeight / 2);

/** How many lines fit a frame `h` tall below `pad`: the last one's glyphs end inside it. */
function linesThatFit(h: number, pad: number, lineHeight: number, size: number, ink: InkExtent) {
  const firstBottom = pad + lineHeight / 2 + ink.below * size;
  if (h + 0.01 < firstBottom) return 0;
  return Math.floor((h - firstBottom + 0.01) / lineHeight) + 1;
}

/** How tall `n` lines stand below `pad`, from the frame's top to the last one's glyphs. */
const inkHeight = (n: number, pad: number, lineHeight: number, size: number, ink: InkExtent) =>
  n === 0 ? 0 : pad + (n - 1) * lineHeight + lineHeight / 2 + ink.below * size;

/**
 * The most of `parts` (at least 1 when any fits) that, joined and ended with "…", stand
 * `width` wide at most: by bisection, since a longer prefix is never narrower.
 */
function longestEnding(parts: string[], width: number, measure: (t: string) => number) {
  const ended = (n: number) => `${parts.slice(0, n).join('').trimEnd()}${ELLIPSIS}`;
  let lo = 0;
  let hi = parts.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(ended(mid)) <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? undefined : ended(lo);
}

/**
 * `line` ended at a word with "…", as wide as `width` at most; a single word wider than that
 * is cut between graphemes. Bisected, not shortened a piece at a time: a line of 5,000
 * zero-width characters would otherwise be measured 5,000 times.
 */
function ellipsize(line: string, width: number, measure: (t: string) => number): string {
  // Words with the punctuation that touches them; never ending on the space before "…".
  const words = breakablePieces(line).filter((p, i, all) => i < all.length - 1 || p.trim());
  const byWord = longestEnding(words, width, measure);
  if (byWord) return byWord;
  const parts = Array.from(graphemes.segment(line), (s) => s.segment);
  return longestEnding(parts, width, measure) ?? ELLIPSIS;
}

/** The sizes `shrink` tries, largest first: 2% steps from `size` down to `min`. */
function ladder(size: number, min: number): number[] {
  const sizes: number[] = [];
  const step = Math.max(0.5, size * 0.02);
  for (let s = size; s > min; s -= step) sizes.push(Math.round(s * 100) / 100);
  sizes.push(min);
  return sizes;
}

export const defaultMinSize = (size: number) => Math.max(4, Math.round(size * 0.45 * 100) / 100);

/**
 * The largest of `sizes` (largest first) at which `fits` holds, by bisection (fitting is
 * monotonic in the size, bar rounding), or undefined when not even the smallest does.
 */
function largestFitting<T>(sizes: number[], at: (s: number) => T, fits: (c: T) => boolean) {
  let lo = 0;
  let hi = sizes.length - 1;
  let best = at(sizes[hi]!);
  if (!fits(best)) return undefined;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const c = at(sizes[mid]!);
    if (fits(c)) {
      best = c;
      hi = mid;
    } else lo = mid + 1;
  }
  return best;
}

/** Lays a text layer out in its frame by its `fit` rule. */
export function fitText(l: FitLayer, measureAt: MeasureAt, ink: InkExtent): FittedText {
  const at = (size: number) => {
    const measure = (t: string) => measureAt(t, size);
    const { lines, broken } = wrapLines(l.text, l.w, measure);
    const lineHeight = size * l.line_height;
    // Text without a height has no frame to keep its glyphs in: it is drawn as it always was.
    const pad = l.h === undefined ? 0 : headroom(lines[0], lineHeight, size, ink);
    const room = l.h === undefined ? lines.length : linesThatFit(l.h, pad, lineHeight, size, ink);
    return { size, lines, broken, lineHeight, pad, room, measure };
  };
  let chosen = at(l.size);
  const whole = (c: typeof chosen) => c.lines.length <= c.room;
  const sizes = () => ladder(l.size, Math.min(l.size, l.min_size ?? defaultMinSize(l.size)));
  // Ellipsis shortens text, but a frame too short for one line at this size (a taller font
  // than the template's) would show nothing: it shrinks until one line fits.
  if (l.fit === 'ellipsis' && l.h !== undefined && chosen.room === 0 && l.text.trim())
    chosen = largestFitting(sizes(), at, (c) => c.room > 0) ?? chosen;
  if (l.fit === 'shrink' && l.h !== undefined && !(whole(chosen) && !chosen.broken)) {
    const ladderSizes = sizes();
    // The largest size that fits with every word whole; failing that (a URL wider than the
    // frame at any size), the largest at which the lines fit, the long word broken; failing
    // that, the smallest.
    chosen =
      largestFitting(ladderSizes, at, (c) => whole(c) && !c.broken) ??
      largestFitting(ladderSizes, at, whole) ??
      at(ladderSizes.at(-1)!);
  }
  const { size, lineHeight, pad, room, measure } = chosen;
  let lines = chosen.lines;
  const overflow = lines.length > room && l.fit !== 'ellipsis';
  if (lines.length > room) {
    lines = lines.slice(0, room);
    if (l.fit === 'ellipsis' && room > 0)
      lines[room - 1] = ellipsize(lines[room - 1]!, l.w, measure);
  }
  const height = inkHeight(lines.length, pad, lineHeight, size, ink);
  const free = l.h === undefined ? 0 : Math.max(0, l.h - height);
  const offset = l.valign === 'bottom' ? free : l.valign === 'middle' ? free / 2 : 0;
  return {
    size,
    lines,
    lineHeight,
    top: offset + (lines.length ? pad : 0),
    height,
    overflow: overflow || (l.fit === 'ellipsis' && room === 0 && l.text.trim() !== ''),
    broken: chosen.broken && lines.length > 0,
  };
}
