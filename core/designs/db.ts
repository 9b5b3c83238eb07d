// SQL for designs and their rendered pages.
import type { Queryable } from '../db/pool.ts';
import type { Layout } from './layout.ts';

export type DesignRow = {
  id: string;
  account_id: string;
  brand_id: string;
  template: string;
  layout: Layout;
  layout_version: number;
  rendered_version: number | null;
  render_error: string | null;
};

export async function insertDesign(
  db: Queryable,
  d: { accountId: string; brandId: string; template: string; layout: Layout },
): Promise<DesignRow> {
  const { rows } = await db.query<DesignRow>(
    `insert into designs (account_id, brand_id, template, layout) values ($1, $2, $3, $4)
     returning *`,
    [d.accountId, d.brandId, d.template, JSON.stringify(d.layout)],
  );
  return rows[0]!;
}

/** The rendered pages of a design, in page order. */
export async function renderedPages(db: Queryable, designId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id::text from assets where design_id = $1 order by filename, id`,
    [designId],
  );
  return rows.map((r) => r.id);
}

export const RENDER_DESIGN_TASK = 'render_design';
/** Rendering is deterministic: a second try only helps after a crash. */
const RENDER_MAX_ATTEMPTS = 2;

/** Queues the rendering of one layout version (job key: one pending render per design). */
export async function enqueueRender(db: Queryable, designId: string, version: number) {
  await db.query(
    `select graphile_worker.add_job($1, json_build_object('design_id', $2::text, 'layout_version', $3::int),
       job_key := $1 || ':' || $2, max_attempts := $4)`,
    [RENDER_DESIGN_TASK, designId, version, RENDER_MAX_ATTEMPTS],
  );
}
