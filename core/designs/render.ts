// The render_design job: renders every page of one layout version (render/canvas.ts), stores
// the PNGs as the design's page assets, and attaches them to the design's unpublished posts,
// then announces the outcome (NOTIFY design_rendered) to an API waiting on it. A job for a
// version that is no longer current does nothing: a newer job renders the newer layout.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Image } from '@napi-rs/canvas';
import { z } from 'zod';
import { decodeImage, renderPage } from '../../render/canvas.ts';
import { imageStorageKeys } from '../assets/db.ts';
import { fileDesignPages } from '../assets/pages.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { DomainError } from '../errors.ts';
import { isId } from '../ids.ts';
import { attachToUnpublishedPostsOf, detachFromUnpublishedPostsOf } from '../posts/db.ts';
import { deleteQuietly, readAll, type Storage } from '../storage/storage.ts';
import { type DesignRow, designById, markRendered, recordRenderError } from './db.ts';
import { ASPECTS, pagesOf } from './layout.ts';

export const RenderJob = z.object({
  design_id: z.string().refine(isId),
  layout_version: z.number().int(),
});
export type RenderJob = z.infer<typeof RenderJob>;

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
  for (const row of await imageStorageKeys(pool, design.account_id, ids))
    images.set(row.id, await decodedImage(storage, row.id, row.storage_key));
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
  await recordRenderError(
    deps.pool,
    job.design_id,
    job.layout_version,
    `Rendering failed: ${(err as Error).message}`,
  );
  await notify(deps.pool, job);
}

export async function renderDesignJob(deps: { pool: Pool; storage: Storage }, job: RenderJob) {
  const { pool, storage } = deps;
  const design = await designById(pool, job.design_id);
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
    if (!(await markRendered(tx, job.design_id, job.layout_version))) return undefined;
    // The design's posts that are not published (or being published) show the new pages:
    // detached first, so the old pages any other post still shows are kept, not deleted.
    await detachFromUnpublishedPostsOf(tx, job.design_id);
    const { pageIds, freedKeys } = await fileDesignPages(
      tx,
      { id: design.id, accountId: design.account_id, brandId: design.brand_id },
      size,
      stored,
    );
    await attachToUnpublishedPostsOf(tx, job.design_id, pageIds);
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
