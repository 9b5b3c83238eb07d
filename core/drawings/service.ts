// Drawing operations: create, read, list and update a brand's drawings, written
// once here for the MCP tools and any other surface. Another account's drawing is not found,
// never forbidden; an update names the version it read, and a stale one changes nothing.
import type {
  Drawing,
  Drawing as DrawnDrawing,
  DrawingStroke as DrawnStroke,
} from '../../render/drawing.ts';
import { brandFor, requireOwnedBrand } from '../brands/service.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { conflict, invalid, notFound, versionConflict } from '../kernel/errors.ts';
import { isId, newPartId } from '../kernel/ids.ts';
import type { Caller } from '../posts/service.ts';
import { grouped } from '../validation.ts';
import {
  type DrawingHead,
  type DrawingRow,
  deleteDrawingRow,
  drawingsByIds,
  findDrawing,
  findDrawingStrokes,
  insertDrawing,
  listDrawings,
  ownedDrawingIds,
  saveDrawing,
} from './db.ts';
import { drawingHeadOf } from './head.ts';
import { cutStrokePage, type PageStart } from './pages.ts';
import {
  type CreateDrawingInput,
  type DeleteDrawingInput,
  DRAWING_PAGE_BYTES,
  type DrawingSummary,
  type DrawingView,
  MAX_STROKES,
  pointsMessage,
  pointsPastLimit,
  type Stroke,
  type UpdateDrawingInput,
} from './schema.ts';

/** Whether A and B are the same type, not merely assignable one way or the other. */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
// A stroke the API accepts is one the renderer knows how to draw (render/drawing.ts).
true satisfies Same<Stroke, DrawnStroke>;
true satisfies Same<
  Pick<DrawingView, 'width' | 'height' | 'background'>,
  Omit<DrawnDrawing, 'strokes'>
>;

const toSummary = (r: DrawingHead): DrawingSummary => ({
  id: r.id,
  brand_id: r.brand_id,
  title: r.title,
  width: r.width,
  height: r.height,
  background: r.background,
  stroke_count: r.stroke_count,
  point_count: r.point_count,
  version: r.version,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

export const toDrawing = (r: DrawingRow): DrawingView => {
  const { stroke_count: _s, point_count: _p, ...head } = toSummary(r);
  return { ...head, strokes: r.strokes };
};

/**
 * Gives every stroke without a sid a new one; a sid given twice is refused at `loc`.
 * `taken` holds the sids already in the drawing.
 */
function withSids(strokes: Stroke[], loc: (string | number)[], taken = new Set<string>()) {
  const seen = new Set(taken);
  return strokes.map((s, i) => {
    const sid = s.sid ?? newPartId('s');
    if (seen.has(sid)) throw invalid([...loc, i, 'sid'], `stroke id "${sid}" is used twice`);
    seen.add(sid);
    return { ...s, sid };
  });
}

/** The account's drawing by id, or 404 (another account's drawing is not found either). */
export async function drawingOf(db: Queryable, caller: Caller, drawingId: string, lock = false) {
  const row = isId(drawingId)
    ? await findDrawing(db, caller.accountId, drawingId, lock)
    : undefined;
  if (!row) throw notFound('Drawing');
  return row;
}

export async function createDrawing(
  db: Queryable,
  caller: Caller,
  input: CreateDrawingInput,
): Promise<DrawingView> {
  const brandId = brandFor(caller, input.brand_id, 'brand_id');
  if (!isId(brandId)) throw notFound('Brand');
  const row = await insertDrawing(db, {
    account_id: caller.accountId,
    brand_id: brandId,
    title: input.title,
    width: input.width,
    height: input.height,
    background: input.background,
    strokes: withSids(input.strokes, ['strokes']),
  });
  // The insert selects the brand among the account's: none came back, no such brand.
  if (!row) throw notFound('Brand');
  return toDrawing(row);
}

/**
 * get_drawing: the drawing with a page of its strokes from `from` (./pages.ts: as many as fit
 * DRAWING_PAGE_BYTES, a stroke too large for one page in parts), their total, and where the
 * next page starts. Postgres sends only the strokes that can be on the page.
 */
export async function getDrawing(
  db: Queryable,
  caller: Caller,
  drawingId: string,
  from: Partial<PageStart> = {},
): Promise<
  DrawingView & {
    stroke_count: number;
    point_offset: number;
    next_stroke_offset: number | null;
    next_point_offset: number | null;
  }
> {
  const start = { stroke_offset: from.stroke_offset ?? 0, point_offset: from.point_offset ?? 0 };
  const row = isId(drawingId)
    ? await findDrawingStrokes(db, caller.accountId, drawingId, {
        offset: start.stroke_offset,
        bytes: DRAWING_PAGE_BYTES,
      })
    : undefined;
  if (!row) throw notFound('Drawing');
  const points = row.strokes[0]?.points.length ?? 0;
  if (start.point_offset && start.point_offset >= points)
    throw invalid(
      ['point_offset'],
      row.strokes.length
        ? `stroke ${start.stroke_offset} has ${grouped(points)} points; give a point_offset below that (next_point_offset of the page before)`
        : `there is no stroke ${start.stroke_offset} (the drawing has ${grouped(row.stroke_count)}); give point_offset 0`,
    );
  const { strokes: _all, ...head } = toDrawing(row);
  const page = cutStrokePage(head, row.strokes, start, row.stroke_count);
  return {
    ...head,
    strokes: page.strokes,
    stroke_count: row.stroke_count,
    point_offset: start.point_offset,
    next_stroke_offset: page.next_stroke_offset,
    next_point_offset: page.next_point_offset,
  };
}

/** list_drawings: the account's drawings (of one brand if given), newest first, one page. */
export async function listBrandDrawings(
  db: Queryable,
  caller: Caller,
  q: { brand_id?: string; offset: number; limit: number },
): Promise<{ drawings: DrawingSummary[] }> {
  // An explicit brand must be the account's: an empty list would hide a wrong id.
  if (q.brand_id !== undefined) await requireOwnedBrand(db, caller.accountId, q.brand_id);
  const rows = await listDrawings(db, caller.accountId, {
    brandId: q.brand_id,
    offset: q.offset,
    limit: q.limit,
  });
  return { drawings: rows.map(toSummary) };
}

/**
 * Which of the account's designs show a drawing: asked of the designs above, which show
 * drawings (so drawings never import designs).
 */
export type DesignsShowing = (
  db: Queryable,
  accountId: string,
  drawingId: string,
) => Promise<string[]>;

/**
 * delete_drawing: refused (409 drawing_in_use, naming the designs) while a design's layer
 * shows the drawing, unless `force`: those layers then render without it, with a warning.
 */
export async function deleteDrawing(
  pool: Pool,
  caller: Caller,
  input: DeleteDrawingInput,
  designsShowingDrawing: DesignsShowing,
): Promise<{ drawing_id: string; deleted: true; designs: string[] }> {
  return withTransaction(pool, async (tx) => {
    const row = await drawingHeadOf(tx, caller, input.drawing_id, true);
    const designs = await designsShowingDrawing(tx, caller.accountId, row.id);
    if (designs.length && !input.force)
      throw conflict(
        'drawing_in_use',
        `Design(s) ${designs.join(', ')} show drawing ${row.id}: change those layers first, or give force: true (they then render without it).`,
      );
    await deleteDrawingRow(tx, row.id);
    return { drawing_id: row.id, deleted: true as const, designs };
  });
}

/**
 * update_drawing: the title, background, and either a whole new set of strokes or strokes
 * added on top and removed by sid, as one new version; refused, changing nothing, when
 * `expected_version` is not the current one, when a sid to remove is not there, or when the
 * result goes over the drawing's bounds.
 */
export async function updateDrawing(
  pool: Pool,
  caller: Caller,
  input: UpdateDrawingInput,
): Promise<DrawingView> {
  return withTransaction(pool, async (tx) => {
    const row = await drawingOf(tx, caller, input.drawing_id, true);
    if (row.version !== input.expected_version) throw versionConflict(row.version);
    let strokes: Stroke[];
    if (input.strokes !== undefined) strokes = withSids(input.strokes, ['strokes']);
    else {
      const remove = new Set(input.remove_strokes ?? []);
      for (const [i, sid] of (input.remove_strokes ?? []).entries())
        if (!row.strokes.some((s) => s.sid === sid))
          throw invalid(['remove_strokes', i], `no stroke "${sid}" in drawing ${row.id}`);
      const kept = row.strokes.filter((s) => !remove.has(s.sid ?? ''));
      const taken = new Set(kept.map((s) => s.sid ?? ''));
      strokes = [...kept, ...withSids(input.add_strokes ?? [], ['add_strokes'], taken)];
    }
    // The kept strokes and the added ones together, under the schema's own bounds.
    if (strokes.length > MAX_STROKES)
      throw invalid(
        ['add_strokes'],
        `at most ${grouped(MAX_STROKES)} strokes a drawing; this would make ${grouped(strokes.length)}`,
      );
    const past = pointsPastLimit(strokes);
    if (past) throw invalid(['add_strokes'], pointsMessage(past.points));
    const saved = await saveDrawing(tx, row.id, {
      title: input.title ?? row.title,
      background: input.background ?? row.background,
      strokes,
    });
    return toDrawing(saved);
  });
}

/** The drawings a layout names that are not the account's (or no longer exist). */
export async function missingDrawings(db: Queryable, accountId: string, ids: string[]) {
  const valid = ids.filter(isId);
  const owned = await ownedDrawingIds(db, accountId, valid);
  return new Set(ids.filter((id) => !owned.has(id)));
}

/** The account's drawings among `ids` as the renderer draws them, by id. */
export async function drawingsToRender(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<Map<string, Drawing>> {
  const rows = await drawingsByIds(db, accountId, [...new Set(ids)].filter(isId));
  return new Map(
    rows.map((r) => [
      r.id,
      { width: r.width, height: r.height, background: r.background, strokes: r.strokes },
    ]),
  );
}

export type { DrawingFileApiDeps } from './exports.ts';
export {
  attachDrawingToPost,
  exportDrawing,
  readExportFile,
  readSignedExport,
  saveDrawingToLibrary,
} from './exports.ts';
export { dropOldExports, EXPORT_KEEP_HOURS } from './files.ts';
export type { DrawingRenderDeps } from './renderJob.ts';
export { renderDrawingJob } from './renderJob.ts';
