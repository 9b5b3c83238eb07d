// get_drawing's pages, cut by size: a page holds the strokes that fit DRAWING_PAGE_BYTES of
// JSON and ends before the first that would pass it, so whoever reads page by page gets every
// stroke exactly once. A stroke too large for any page by itself (5,000 points of decimals is
// about 285 KB) comes alone, its points in parts: the page's next_point_offset says where the
// next part starts, and the parts, joined in order, are the stroke.
import { DRAWING_PAGE_BYTES, type Stroke } from './schema.ts';

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Where a page starts: a stroke, and how many of its points the page before already gave. */
export type PageStart = { stroke_offset: number; point_offset: number };

export type StrokePageCut = {
  /** The page's strokes: the first from `point_offset` on, the last maybe only its first points. */
  strokes: Stroke[];
  next_stroke_offset: number | null;
  /** Set when the page ends inside a stroke (the one at next_stroke_offset). */
  next_point_offset: number | null;
};

/**
 * The page starting at `start`, of `candidates` (the strokes from start.stroke_offset on, at
 * least all that could fit), in an answer whose other members are `head`; `strokeCount` is the
 * drawing's. The byte count is the JSON sent, so the budget holds whatever the coordinates.
 */
export function cutStrokePage(
  head: Record<string, unknown>,
  candidates: readonly Stroke[],
  start: PageStart,
  strokeCount: number,
): StrokePageCut {
  // The answer without strokes, its numbers at their widest.
  let room =
    DRAWING_PAGE_BYTES -
    jsonBytes({
      ...head,
      strokes: [],
      stroke_count: strokeCount,
      point_offset: start.point_offset,
      next_stroke_offset: strokeCount,
      next_point_offset: start.point_offset + 9_999,
    });
  const strokes: Stroke[] = [];
  for (const [i, whole] of candidates.entries()) {
    const stroke =
      i === 0 && start.point_offset
        ? { ...whole, points: whole.points.slice(start.point_offset) }
        : whole;
    const bytes = jsonBytes(stroke) + (strokes.length ? 1 : 0);
    if (bytes <= room) {
      strokes.push(stroke);
      room -= bytes;
      continue;
    }
    if (i > 0) break;
    // Too large for a page of its own: as many of its points as fit, the rest on the next.
    let take = 0;
    let used = jsonBytes({ ...stroke, points: [] });
    while (take < stroke.points.length) {
      used += jsonBytes(stroke.points[take]) + (take ? 1 : 0);
      if (used > room) break;
      take++;
    }
    return {
      strokes: [{ ...stroke, points: stroke.points.slice(0, Math.max(take, 1)) }],
      next_stroke_offset: start.stroke_offset,
      next_point_offset: start.point_offset + Math.max(take, 1),
    };
  }
  const next = start.stroke_offset + strokes.length;
  return {
    strokes,
    next_stroke_offset: next < strokeCount ? next : null,
    next_point_offset: null,
  };
}
