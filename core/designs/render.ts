// The render_design job: renders every page of one layout version in a render thread
// (render/renderPool.ts), one page at a time with only that page's images, stores
// the PNGs as the design's page assets, and attaches them to the design's unpublished posts,
// then announces the outcome (NOTIFY design_rendered) to an API waiting on it. A job for a
// version that is no longer current does nothing: a newer job renders the newer layout.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { ImageFile } from '../../render/canvas.ts';
import { RenderOutOfMemory, type RenderPool, RenderTimedOut } from '../../render/renderPool.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { isId } from '../ids.ts';
import { deleteQuietly, type Storage } from '../storage/storage.ts';
import type { DesignRow } from './db.ts';
import { ASPECTS, type Page, pagesOf } from './layout.ts';
import { ownedImages, withPageImages } from './pageImages.ts';

export const RenderJob = z.object({
  design_id: z.string().refine(isId),
  layout_version: z.number().int(),
});
export type RenderJob = z.infer<typeof RenderJob>;

const notify = (db: Pick<Pool, 'query'>, job: RenderJob) =>
  db.query(`select pg_notify('design_rendered', $1)`, [`${job.design_id}:${job.layout_version}`]);

/** Records why a render failed, drops its files and wakes the API waiting on it. */
async function failed(
  deps: Pick<RenderDeps, 'pool' | 'storage'>,
  job: RenderJob,
  stored: { key: string }[],
  err: unknown,
) {
  await deleteQuietly(
    deps.storage,
    stored.map((s) => s.key),
  );
  await deps.pool.query(
    'update designs set render_error = $3 where id = $1 and layout_version = $2',
    [job.design_id, job.layout_version, `Rendering failed: ${(err as Error).message}`],
  );
  await notify(deps.pool, job);
}

/** Why a page could not be drawn, with what to change when the layout is the cause. */
function whyNot(err: unknown, page: number, pages: number): Error {
  const which = pages > 1 ? `page ${page + 1}` : 'the page';
  const change = 'use fewer or shorter text layers, or fewer images, on it';
  if (err instanceof RenderTimedOut)
    return new Error(
      `${which} took longer than ${err.timeoutMs / 1000} s to draw and was stopped; ${change}`,
    );
  if (err instanceof RenderOutOfMemory)
    return new Error(`${which} needed more memory than a render may use; ${change}`);
  return err as Error;
}

export type RenderDeps = { pool: Pool; storage: Storage; renderer: RenderPool };

/** One page: its images loaded, then drawn in a render thread; each step has the time limit. */
async function drawPage(
  deps: RenderDeps,
  owned: ReadonlyMap<string, string>,
  page: Page,
  canvas: { width: number; height: number; bg: string },
): Promise<Buffer> {
  const draw = async (images: Map<string, ImageFile>) =>
    (await deps.renderer.render({ ...canvas, layers: page.layers, images })).png;
  return withPageImages(deps.storage, owned, page.layers, deps.renderer.timeoutMs, draw);
}

export async function renderDesignJob(deps: RenderDeps, job: RenderJob) {
  const { pool, storage } = deps;
  const design = (
    await pool.query<DesignRow>('select * from designs where id = $1', [job.design_id])
  ).rows[0];
  if (!design || design.layout_version !== job.layout_version) return 'stale';

  const size = ASPECTS[design.layout.canvas.aspect];
  const stored: { key: string; bytes: number }[] = [];
  try {
    const pages = pagesOf(design.layout);
    const owned = await ownedImages(
      pool,
      design.account_id,
      pages.flatMap((p) => p.layers.flatMap((l) => (l.kind === 'image' ? [l.asset_id] : []))),
    );
    for (const [n, page] of pages.entries()) {
      const png = await drawPage(deps, owned, page, {
        ...size,
        bg: page.bg ?? design.layout.canvas.bg,
      }).catch((err) => {
        throw whyNot(err, n, pages.length);
      });
      const key = `renders/${design.account_id}/${randomUUID()}.png`;
      await storage.put(key, Readable.from([png]));
      stored.push({ key, bytes: png.length });
    }
  } catch (err) {
    await failed(deps, job, stored, err);
    return 'failed';
  }

  const replaced = await withTransaction(pool, async (tx) => {
    const current = await tx.query(
      `update designs set rendered_version = $2, render_error = null, updated_at = now()
       where id = $1 and layout_version = $2 returning id`,
      [job.design_id, job.layout_version],
    );
    if (!current.rowCount) return undefined;
    const old = await tx.query<{ storage_key: string }>(
      'delete from assets where design_id = $1 returning storage_key',
      [job.design_id],
    );
    const { rows: pages } = await tx.query<{ id: string }>(
      `insert into assets (account_id, brand_id, kind, mime, bytes, filename, width, height,
                           storage_key, design_id)
       select $1, $2, 'image', 'image/png', b,
              'design-' || $3::text || '-page-' || lpad(n::text, 2, '0') || '.png',
              $4, $5, k, $3::bigint
       from unnest($6::text[], $7::bigint[]) with ordinality as t(k, b, n)
       returning id::text`,
      [
        design.account_id,
        design.brand_id,
        design.id,
        size.width,
        size.height,
        stored.map((s) => s.key),
        stored.map((s) => s.bytes),
      ],
    );
    // The design's posts that are not published (or being published) show the new pages.
    const linked = `select id from posts
                    where design_id = $1 and status not in ('published', 'publishing')`;
    await tx.query(`delete from post_assets where post_id in (${linked})`, [job.design_id]);
    await tx.query(
      `insert into post_assets (post_id, position, asset_id)
       select l.id, p.n - 1, p.asset_id
       from (${linked}) l, unnest($2::bigint[]) with ordinality as p(asset_id, n)`,
      [job.design_id, pages.map((p) => p.id)],
    );
    await notify(tx, job);
    return old.rows.map((r) => r.storage_key);
  }).catch(async (err) => {
    // Recorded for the waiting API, then thrown so the job is tried once more.
    await failed(deps, job, stored, err);
    throw err;
  });
  if (!replaced) {
    await deleteQuietly(
      storage,
      stored.map((s) => s.key),
    );
    return 'stale';
  }
  await deleteQuietly(storage, replaced);
  return 'rendered';
}
