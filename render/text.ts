// Text wrapping for the renderer: @napi-rs/canvas draws one line at a time and never wraps,
// so lines are broken here at word boundaries to fit a width, measured with the real font.
// Breaks fall between words, or between graphemes inside a word too long for a line, never
// inside a grapheme (an emoji with its modifiers stays whole).
//
// A line is filled by galloping then bisecting over the pieces that could join it, not one
// piece at a time: measuring costs the length of the string measured, so adding words one by
// one costs the square of a line's length (a 5,000-character line of CJK at 4 px took 34 s),
// while this costs its length times a logarithm. Widths only grow as pieces are added, so the
// longest prefix that fits is the line the one-at-a-time rule would have made.

const words = new Intl.Segmenter('en', { granularity: 'word' });
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

export type Measure = (text: string) => number;

/**
 * How many of `pieces[from..]` can follow `start` on a line of `width` (at least 0). `fits`
 * tells whether a candidate line is narrow enough.
 */
function longestFit(
  start: string,
  pieces: string[],
  from: number,
  fits: (line: string) => boolean,
): number {
  const line = (n: number) => start + pieces.slice(from, from + n).join('');
  const left = pieces.length - from;
  // Gallop: 1, 2, 4, ... pieces until one does not fit or none are left.
  let good = 0;
  let step = 1;
  while (good < left) {
    const next = Math.min(left, good + step);
    if (!fits(line(next))) {
      // Bisect between the last count that fit and this one.
      let bad = next;
      while (bad - good > 1) {
        const mid = (good + bad) >> 1;
        if (fits(line(mid))) good = mid;
        else bad = mid;
      }
      return good;
    }
    good = next;
    step *= 2;
  }
  return good;
}

/** Splits a word wider than `width` into pieces that fit, at grapheme boundaries. */
function splitLongWord(word: string, width: number, measure: Measure): string[] {
  const parts = Array.from(graphemes.segment(word), (s) => s.segment);
  const pieces: string[] = [];
  let at = 0;
  while (at < parts.length) {
    // A grapheme wider than the line still takes a line of its own.
    const n = Math.max(
      1,
      longestFit('', parts, at, (t) => measure(t) <= width),
    );
    pieces.push(parts.slice(at, at + n).join(''));
    at += n;
  }
  return pieces;
}

/**
 * The pieces a line may break between: words with the punctuation that touches them ("Berlin,"
 * and "(soon)" stay whole), the spaces between them, and words of scripts written without
 * spaces (CJK), which the segmenter tells apart.
 */
export function breakablePieces(paragraph: string): string[] {
  const pieces: string[] = [];
  let current = '';
  let currentIsWord = false;
  for (const { segment, isWordLike } of words.segment(paragraph)) {
    const space = !segment.trim();
    if (space) {
      if (current) pieces.push(current);
      pieces.push(segment);
      current = '';
    } else if (current && isWordLike && currentIsWord) {
      pieces.push(current);
      current = segment;
    } else current += segment;
    currentIsWord = !space && Boolean(isWordLike);
  }
  if (current) pieces.push(current);
  return pieces;
}

/** The lines of `text` wrapped to `width`; `\n` starts a new line. */
export const wrapText = (text: string, width: number, measureText: Measure): string[] =>
  wrapLines(text, width, measureText).lines;

/** The lines of `text` wrapped to `width`, and whether a word had to be broken to fit. */
export function wrapLines(
  text: string,
  width: number,
  measureText: Measure,
): { lines: string[]; broken: boolean } {
  let broken = false;
  // A line is often measured twice (as a candidate, then as the line): measure it once.
  const widths = new Map<string, number>();
  const measure: Measure = (t) => {
    let w = widths.get(t);
    if (w === undefined) {
      w = measureText(t);
      widths.set(t, w);
    }
    return w;
  };
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    // Word segments include the spaces between words; a line never starts with one.
    const segments = breakablePieces(paragraph);
    let line = '';
    let i = 0;
    while (i < segments.length) {
      if (!line) {
        line = segments[i]!.trimStart();
        i++;
      } else {
        const n = longestFit(line, segments, i, (t) => measure(t.trimEnd()) <= width);
        line += segments.slice(i, i + n).join('');
        i += n;
        if (i === segments.length) break;
        lines.push(line.trimEnd());
        line = segments[i]!.trimStart();
        i++;
      }
      if (line && measure(line.trimEnd()) > width) {
        const pieces = splitLongWord(line.trimEnd(), width, measure);
        broken = true;
        lines.push(...pieces.slice(0, -1));
        line = pieces.at(-1) ?? '';
      }
    }
    lines.push(line.trimEnd());
  }
  return { lines, broken };
}
