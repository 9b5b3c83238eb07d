// SQL for drawings (sql/023_drawings.sql, 025_drawing_counts.sql). The strokes, megabytes
// at most, are read only where they are drawn or changed; the rest reads the head.
import type { Queryable } from '../db/pool.ts';
import type { Stroke } from './schema.ts';

/** A drawing without its strokes, which it counts. */
export type DrawingHead = {
  id: string;
  account_id: string;
  brand_id: string;
  title: string;
  width: number;
  height: number;
  background: string;
  stroke_count: number;
  point_count: number;
  version: number;
  created_at: Date;
  updated_at: Date;
};

export type DrawingRow = DrawingHead & { strokes: Stroke[] };

const HEAD = `id::text, account_id::text, brand_id::text, title, width, height, background,
  stroke_count, point_count, version, created_at, updated_at`;
const COLUMNS = `${HEAD}, strokes`;

const counts = (strokes: readonly Stroke[]) => ({
  strokes: strokes.length,
  points: strokes.reduce((n, s) => n + s.points.length, 0),
});

export async function insertDrawing(
  db: Queryable,
  d: Pick<
    DrawingRow,
    'account_id' | 'brand_id' | 'title' | 'width' | 'height' | 'background' | 'strokes'
  >,
): Promise<DrawingRow | undefined> {
  const n = counts(d.strokes);
  const { rows } = await db.query<DrawingHead>(
    `insert into drawings (account_id, brand_id, title, width, height, background, strokes,
                           stroke_count, point_count)
     select $1, b.id, $3, $4, $5, $6, $7, $8, $9 from brands b
     where b.id = $2 and b.account_id = $1
     returning ${HEAD}`,
    [
      d.account_id,
      d.brand_id,
      d.title,
      d.width,
      d.height,
      d.background,
      JSON.stringify(d.strokes),
      n.strokes,
      n.points,
    ],
  );
  return rows[0] && { ...rows[0], strokes: d.strokes };
}

/**
 * The account's drawing with the strokes after the first `offset` that can be on one page of
 * `bytes` (./pages.ts cuts it exactly): the first, then those whose stored text before them,
 * the first not counted (a page may hold only its last points), is under `bytes`. The rest
 * never leaves Postgres.
 */
export async function findDrawingStrokes(
  db: Queryable,
  accountId: string,
  drawingId: string,
  page: { offset: number; bytes: number },
): Promise<DrawingRow | undefined> {
  // The column is json (025): a stroke's text is the JSON as written, the size it is sent at.
  const { rows } = await db.query<DrawingRow>(
    `select ${HEAD}, coalesce(
       (select json_agg(t.stroke order by t.n) from (
          select s.stroke, s.n,
            sum(s.bytes) over (order by s.n) - s.bytes as before
          from (select e.stroke, e.n,
                  case when e.n = $3 + 1 then 0 else octet_length(e.stroke::text) end as bytes
                from json_array_elements(strokes) with ordinality as e(stroke, n)
                where e.n > $3) s) t
        where t.before < $4),
       '[]') as strokes
     from drawings where id = $1 and account_id = $2`,
    [drawingId, accountId, page.offset, page.bytes],
  );
  return rows[0];
}

/** The account's drawing without its strokes, locked for the transaction with `lock`. */
export async function findDrawingHead(
  db: Queryable,
  accountId: string,
  drawingId: string,
  lock = false,
): Promise<DrawingHead | undefined> {
  const { rows } = await db.query<DrawingHead>(
    `select ${HEAD} from drawings where id = $1 and account_id = $2 ${lock ? 'for update' : ''}`,
    [drawingId, accountId],
  );
  return rows[0];
}

/** The account's drawing with its strokes as the JSON text stored (a worker's, to draw). */
export async function findDrawingText(
  db: Queryable,
  accountId: string,
  drawingId: string,
): Promise<(DrawingHead & { strokes_json: string }) | undefined> {
  const { rows } = await db.query<DrawingHead & { strokes_json: string }>(
    `select ${HEAD}, strokes::text as strokes_json from drawings where id = $1 and account_id = $2`,
    [drawingId, accountId],
  );
  return rows[0];
}

/** The account's drawing, locked for the rest of the transaction with `lock`. */
export async function findDrawing(
  db: Queryable,
  accountId: string,
  drawingId: string,
  lock = false,
): Promise<DrawingRow | undefined> {
  const { rows } = await db.query<DrawingRow>(
    `select ${COLUMNS} from drawings where id = $1 and account_id = $2 ${lock ? 'for update' : ''}`,
    [drawingId, accountId],
  );
  return rows[0];
}

/** The account's drawings, newest first, `limit` of them after `offset`, of one brand if given. */
export async function listDrawings(
  db: Queryable,
  accountId: string,
  q: { brandId?: string; offset: number; limit: number },
): Promise<DrawingHead[]> {
  const { rows } = await db.query<DrawingHead>(
    `select ${HEAD} from drawings
     where account_id = $1 and ($2::bigint is null or brand_id = $2)
     order by id desc offset $3 limit $4`,
    [accountId, q.brandId ?? null, q.offset, q.limit],
  );
  return rows;
}

/** Saves a new state of a drawing: its version moves on. */
export async function saveDrawing(
  db: Queryable,
  drawingId: string,
  d: Pick<DrawingRow, 'title' | 'background' | 'strokes'>,
): Promise<DrawingRow> {
  const n = counts(d.strokes);
  const { rows } = await db.query<DrawingHead>(
    `update drawings set title = $2, background = $3, strokes = $4, stroke_count = $5,
       point_count = $6, version = version + 1, updated_at = now()
     where id = $1 returning ${HEAD}`,
    [drawingId, d.title, d.background, JSON.stringify(d.strokes), n.strokes, n.points],
  );
  return { ...rows[0]!, strokes: d.strokes };
}

/** The account's drawings among `ids`, whole (a render draws them). */
export async function drawingsByIds(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<DrawingRow[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<DrawingRow>(
    `select ${COLUMNS} from drawings where account_id = $1 and id = any($2::bigint[])`,
    [accountId, ids],
  );
  return rows;
}

/** Which of `ids` are the account's drawings. */
export async function ownedDrawingIds(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await db.query<{ id: string }>(
    'select id::text from drawings where account_id = $1 and id = any($2::bigint[])',
    [accountId, ids],
  );
  return new Set(rows.map((r) => r.id));
}

export async function deleteDrawingRow(db: Queryable, drawingId: string): Promise<void> {
  await db.query('delete from drawings where id = $1', [drawingId]);
}
