// The design render job: renders every page of one layout version (render/canvas.ts), stores
// the PNGs as the design's page assets, and attaches them to the design's unpublished posts,
// then announces the outcome (NOTIFY design_rendered) to an API waiting on it. A job for a
// version that is no longer current does nothing: a newer job renders the newer layout.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Image } from '@napi-rs/canvas';
import { decodeImage, renderPage } from '../../render/canvas.ts';
import { fileDesignPages } from '../assets/pages.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { DomainError } from '../errors.ts';
import type { RenderDesignPayload as RenderJob } from '../jobs/tasks.ts';
import { deleteQuietly, readAll, type Storage } from '../storage/storage.ts';
import type { DesignRow } from './db.ts';
import { ASPECTS, pagesOf } from './layout.ts';

const notify = (db: Pick<Pool, 'query'>, job: RenderJob) =>
  db.query(`select pg_notify('design_rendered', $1)`, [`${job.design_id}:${job.layout_version}`]);

/**
 * Photos decoded by earlier renders in this process, least recently used first. A design is
 * rendered again after every edit, mostly with the same photos: a hit skips reading and
 * decoding them. The key holds the storage key, and an asset's bytes never change under its
 * key (every upload gets a new one), so a hit is always the asset's current bytes; ownership is
 * still checked by the query on every render. Bounded by decoded size (4 bytes a pixel): one
 * 12-megapixel phone photo fits, and the oldest go first.
 */
const DECODED_BUDGET_BYTES = 64 * 1024 * 1024;
const decodedImages = new Map<string, { image: Image; bytes: number }>();
let decodedBytes = 0;

async function decodedImage(storage: Storage, id: string, storageKey: string): Promise<Image> {
  const key = `${id}:${storageKey}`;
  const hit = decodedImages.get(key);
  if (hit) {
    decodedImages.delete(key);
    decodedImages.set(key, hit);
    return hit.image;
  }
  const image = await decodeImage(await readAll(storage, storageKey));
  const bytes = image.width * image.height * 4;
  if (bytes <= DECODED_BUDGET_BYTES && !decodedImages.has(key)) {
    decodedImages.set(key, { image, bytes });
    decodedBytes += bytes;
    for (const [oldest, entry] of decodedImages) {
      if (decodedBytes <= DECODED_BUDGET_BYTES) break;
      decodedImages.delete(oldest);
      decodedBytes -= entry.bytes;
    }
  }
  return image;
}

async function loadImages(pool: Pool, storage: Storage, design: DesignRow) {
  const ids = pagesOf(design.layout).flatMap((p) =>
    p.layers.flatMap((l) => (l.kind === 'image' ? [l.asset_id] : [])),
  );
  const images = new Map<string, Image>();
  if (!ids.length) return images;
  const { rows } = await pool.query<{ id: string; storage_key: string }>(
    `select id::text, storage_key from assets
     where account_id = $1 and kind = 'image' and id = any($2::bigint[]) and storage_key is not null`,
    [design.account_id, ids],
  );
  for (const row of rows) images.set(row.id, await decodedImage(storage, row.id, row.storage_key));
  return images;
}

/** Records why a render failed, drops its files and wakes the API waiting on it. */
async function failed(
  deps: { pool: Pool; storage: Storage },
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

export async function renderDesignJob(deps: { pool: Pool; storage: Storage }, job: RenderJob) {
  const { pool, storage } = deps;
  const design = (
    await pool.query<DesignRow>('select * from designs where id = $1', [job.design_id])
  ).rows[0];
  if (!design || design.layout_version !== job.layout_version) return 'stale';

  const size = ASPECTS[design.layout.canvas.aspect];
  const stored: { key: string; bytes: number }[] = [];
  try {
    const images = await loadImages(pool, storage, design);
    for (const page of pagesOf(design.layout)) {
      const png = await renderPage({
        ...size,
        bg: page.bg ?? design.layout.canvas.bg,
        layers: page.layers,
        images,
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
    // The design's posts that are not published (or being published) show the new pages:
    // detached first, so the old pages any other post still shows are kept, not deleted.
    const linked = `select id from posts
                    where design_id = $1 and status not in ('published', 'publishing')`;
    await tx.query(`delete from post_assets where post_id in (${linked})`, [job.design_id]);
    const { pageIds, freedKeys } = await fileDesignPages(
      tx,
      { id: design.id, accountId: design.account_id, brandId: design.brand_id },
      size,
      stored,
    );
    await tx.query(
      `insert into post_assets (post_id, position, asset_id)
       select l.id, p.n - 1, p.asset_id
       from (${linked}) l, unnest($2::bigint[]) with ordinality as p(asset_id, n)`,
      [job.design_id, pageIds],
    );
    await notify(tx, job);
    return freedKeys;
  }).catch(async (err) => {
    // Recorded for the waiting API. A refusal (the quota) is final; anything else is thrown
    // so the job is tried once more.
    await failed(deps, job, stored, err);
    if (err instanceof DomainError) return 'refused' as const;
    throw err;
  });
  if (replaced === 'refused') return 'failed';
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
