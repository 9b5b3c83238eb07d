// SQL for designs. Their rendered pages are assets: core/assets/db.ts reads and writes them,
// keeping the account's storage counter right.
// The posts that show a design are the posts concept's (core/posts/db.ts).
import { pagesOfDesign } from '../assets/service.ts';
import type { Queryable } from '../db/pool.ts';
import { planLimit } from '../kernel/errors.ts';
import { DESIGN_LIMIT, planAllowingDesigns } from '../kernel/plans.ts';
import type { Layout } from './layout.ts';
import type { DesignMaker, DesignRow, DesignSource, RenderWarning } from './schema.ts';

/** Our key space in pg_advisory_xact_lock(int, int). */
const DESIGN_COUNT_LOCK = 734_201_038;

/**
 * The only way a design row is made (CONTRACT.md: a new design past the plan's design limit is
 * 403 plan_limit). The limit lives here, with the insert statements, so that no path can make a
 * design without it. Call it in the transaction that makes the design: the count is taken
 * under the account's design lock, held until that transaction ends, so concurrent creates
 * cannot pass the limit together. A copy is of one of `maker`'s designs, which the caller holds.
 */
export async function makeDesign(
  tx: Queryable,
  maker: DesignMaker,
  source: DesignSource,
): Promise<DesignRow> {
  const limit = DESIGN_LIMIT[maker.plan];
  if (source.from !== 'frozen copy' && limit !== null) {
    await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [
      DESIGN_COUNT_LOCK,
      maker.accountId,
    ]);
    const { rows } = await tx.query<{ n: number }>(
      'select count(*)::int as n from designs where account_id = $1',
      [maker.accountId],
    );
    const kept = rows[0]!.n;
    if (kept >= limit) throw planLimit('designs', limit, planAllowingDesigns(kept));
  }
  switch (source.from) {
    case 'layout': {
      const { rows } = await tx.query<DesignRow>(
        `insert into designs (account_id, brand_id, template, layout) values ($1, $2, $3, $4)
         returning *`,
        [maker.accountId, source.brandId, source.template, JSON.stringify(source.layout)],
      );
      return rows[0]!;
    }
    case 'copy': {
      const { rows } = await tx.query<DesignRow>(
        `insert into designs (account_id, brand_id, template, layout, layout_version)
         select account_id, brand_id, template, layout, layout_version from designs
         where id = $1 and account_id = $2
         returning *`,
        [source.designId, maker.accountId],
      );
      return rows[0]!;
    }
    case 'frozen copy': {
      const { rows } = await tx.query<DesignRow>(
        `insert into designs (account_id, brand_id, template, layout, layout_version,
                              rendered_version, render_error, render_warnings)
         select account_id, brand_id, template, layout, layout_version, rendered_version,
                render_error, render_warnings
         from designs where id = $1 and account_id = $2
         returning *`,
        [source.designId, maker.accountId],
      );
      return rows[0]!;
    }
  }
}

/** The rendered pages of a design, in page order. */
export const renderedPages = pagesOfDesign;

/** The account's design, locked for the rest of the transaction (`share`: others may read). */
export async function lockDesign(
  db: Queryable,
  accountId: string,
  designId: string,
  mode: 'share' | 'update',
): Promise<DesignRow | undefined> {
  const { rows } = await db.query<DesignRow>(
    `select * from designs where id = $1 and account_id = $2 for ${mode === 'share' ? 'share' : 'update'}`,
    [designId, accountId],
  );
  return rows[0];
}

export async function findDesign(
  db: Queryable,
  accountId: string,
  designId: string,
): Promise<DesignRow | undefined> {
  const { rows } = await db.query<DesignRow>(
    'select * from designs where id = $1 and account_id = $2',
    [designId, accountId],
  );
  return rows[0];
}

/** Saves a new layout: the version moves on and the last render error is forgotten. */
export async function saveLayout(
  db: Queryable,
  designId: string,
  change: { layout: Layout; template: string },
): Promise<DesignRow> {
  const { rows } = await db.query<DesignRow>(
    `update designs set layout = $2, template = $3, layout_version = layout_version + 1,
       render_error = null, updated_at = now()
     where id = $1 returning *`,
    [designId, JSON.stringify(change.layout), change.template],
  );
  return rows[0]!;
}

/**
 * A render of the current layout again (a retry, or new pixels for images changed since):
 * the last outcome is forgotten, so whoever waits waits for this render, not the last one.
 */
export async function forgetRender(db: Queryable, designId: string): Promise<void> {
  await db.query(
    'update designs set render_error = null, rendered_version = null, render_warnings = $2 where id = $1',
    [designId, '[]'],
  );
}

/** Any design by id, whoever owns it (the render job). */
export async function designById(db: Queryable, designId: string): Promise<DesignRow | undefined> {
  const { rows } = await db.query<DesignRow>('select * from designs where id = $1', [designId]);
  return rows[0];
}

/** Where a design's rendering stands: the version its pages show, or why the last failed. */
export async function renderStatus(
  db: Queryable,
  designId: string,
): Promise<Pick<DesignRow, 'rendered_version' | 'render_error' | 'render_warnings'> | undefined> {
  const { rows } = await db.query<
    Pick<DesignRow, 'rendered_version' | 'render_error' | 'render_warnings'>
  >('select rendered_version, render_error, render_warnings from designs where id = $1', [
    designId,
  ]);
  return rows[0];
}

/**
 * Records a render of `version` as done, with what it could not show; false when the layout
 * has moved on since.
 */
export async function markRendered(
  db: Queryable,
  designId: string,
  version: number,
  warnings: RenderWarning[],
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update designs set rendered_version = $2, render_error = null, render_warnings = $3,
       updated_at = now()
     where id = $1 and layout_version = $2`,
    [designId, version, JSON.stringify(warnings)],
  );
  return (rowCount ?? 0) > 0;
}

/** Records why the render of `version` failed (nothing when the layout has moved on). */
export async function recordRenderError(
  db: Queryable,
  designId: string,
  version: number,
  error: string,
): Promise<void> {
  await db.query('update designs set render_error = $3 where id = $1 and layout_version = $2', [
    designId,
    version,
    error,
  ]);
}

/** The account's designs with a layer showing the drawing (any page). */
export async function designsShowingDrawing(
  db: Queryable,
  accountId: string,
  drawingId: string,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id::text from designs
     where account_id = $1
       and jsonb_path_exists(layout, '$.**.drawing_id ? (@ == $id)', jsonb_build_object('id', $2::text))
     order by id`,
    [accountId, drawingId],
  );
  return rows.map((r) => r.id);
}

/** A page of a brand's designs, newest first. */
export async function brandDesigns(
  db: Queryable,
  accountId: string,
  brandId: string,
  page: { offset: number; limit: number },
): Promise<(DesignRow & { updated_at: Date })[]> {
  const { rows } = await db.query(
    `select * from designs where account_id = $1 and brand_id = $2
      order by id desc offset $3 limit $4`,
    [accountId, brandId, page.offset, page.limit],
  );
  return rows;
}
