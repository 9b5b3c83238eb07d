// The drawings' queries: a brand's drawings a page at a time, and one drawing with every
// stroke (read in as many pages as it takes).
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { DrawingPage, DrawingSummary } from '../../core/drawings/schema.ts';
import { call } from './api.ts';
import { useSession } from './session.ts';

export type { DrawingSummary };
/** A drawing with all its strokes (its pages joined). */
export type Drawing = DrawingPage;

/** Drawings a list page holds (api/session/drawings.ts). */
const DRAWINGS_PAGE = 50;

export const DRAWING_KEYS = {
  all: ['drawings'],
  pages: (brandId: string | undefined) => ['drawings', brandId],
  one: (drawingId: string) => ['drawing', drawingId],
};

/**
 * Every stroke of a drawing: get_drawing answers them a page at a time, and a stroke too
 * large for a page in parts (a page from point_offset > 0 continues the last stroke).
 */
async function wholeDrawing(id: string): Promise<Drawing> {
  const first = await call<Drawing>('GET', `/app/api/drawings/${id}`);
  const strokes = [...first.strokes];
  let page = first;
  while (page.next_stroke_offset !== null) {
    page = await call<Drawing>(
      'GET',
      `/app/api/drawings/${id}?stroke_offset=${page.next_stroke_offset}&point_offset=${page.next_point_offset ?? 0}`,
    );
    const [continued, ...rest] = page.strokes;
    const last = strokes.at(-1);
    if (page.point_offset && continued && last)
      strokes[strokes.length - 1] = { ...last, points: [...last.points, ...continued.points] };
    else if (continued) strokes.push(continued);
    strokes.push(...rest);
  }
  return { ...first, strokes };
}

/** A brand's drawings, a page at a time. */
export function useDrawingPages(brandId: string | undefined) {
  return useInfiniteQuery({
    queryKey: DRAWING_KEYS.pages(brandId),
    queryFn: ({ pageParam }) =>
      call<{ drawings: DrawingSummary[] }>(
        'GET',
        `/app/api/drawings?brand_id=${brandId}&offset=${pageParam}`,
      ),
    initialPageParam: 0,
    // A full page may have more after it.
    getNextPageParam: (last, pages) =>
      last.drawings.length === DRAWINGS_PAGE ? pages.length * DRAWINGS_PAGE : undefined,
    enabled: !!brandId,
  });
}

/** One drawing with all its strokes. */
export function useDrawing(drawingId: string) {
  const session = useSession();
  return useQuery({
    queryKey: DRAWING_KEYS.one(drawingId),
    queryFn: () => wholeDrawing(drawingId),
    enabled: !!session.data,
  });
}
