// A drawing's head (everything but its strokes), found for its owner: what exports and checks
// need, and the ownership check they share.
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import type { Caller } from '../posts/service.ts';
import { findDrawingHead } from './db.ts';

/** drawingOf without the strokes: what exports and checks need. */
export async function drawingHeadOf(
  db: Queryable,
  caller: Caller,
  drawingId: string,
  lock = false,
) {
  const row = isId(drawingId)
    ? await findDrawingHead(db, caller.accountId, drawingId, lock)
    : undefined;
  if (!row) throw notFound('Drawing');
  return row;
}
