// Text wrapping for the renderer: @napi-rs/canvas draws one line at a time and never wraps,
// so lines are broken here at word boundaries to fit a width, measured with the real font.
// Breaks fall between words, or between graphemes inside a word too long for a line, never
// inside a grapheme (an emoji with its modifiers stays whole).

const words = new Intl.Segmenter('en', { granularity: 'word' });
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

export type Measure = (text: string) => number;

/** Splits a word wider than `width` into pieces that fit, at grapheme boundaries. */
function splitLongWord(word: string, width: number, measure: Measure): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const { segment } of graphemes.segment(word)) {
    if (current && measure(current + segment) > width) {
      pieces.push(current);
      current = segment;
    } else current += segment;
  }
  if (current) pieces.push(current);
  return pieces;
}

/** The lines of `text` wrapped to `width`; `\n` starts a new line. */
export function wrapText(text: string, width: number, measure: Measure): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    // Word segments include the spaces between words; a line never starts with one.
    for (const { segment } of words.segment(paragraph)) {
      if (!line) line = segment.trimStart();
      else if (measure((line + segment).trimEnd()) <= width) line += segment;
      else {
        lines.push(line.trimEnd());
        line = segment.trimStart();
      }
      if (line && measure(line.trimEnd()) > width) {
        const pieces = splitLongWord(line.trimEnd(), width, measure);
        lines.push(...pieces.slice(0, -1));
        line = pieces.at(-1) ?? '';
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}
