// The drawing render job (TASK.renderDrawing, `render` pool): one version of a
// drawing drawn in a render thread, as an export (a PNG or SVG kept an hour under the job's
// own folder, ./files.ts) or as a library image (a PNG asset of the drawing's brand, its
// title as alt text, counted against the storage quota). The worker reads the strokes as the
// JSON text stored and the thread parses them: cheaper than a structured clone of 200,000
// small arrays. The API's side, which starts the job and waits on it, is ./exports.ts.
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { RenderOutOfMemory, type RenderPool, RenderTimedOut } from '../../render/renderPool.ts';
import { fileMadeAsset } from '../assets/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { type FinishInside, JobFailure } from '../jobs/service.ts';
import type { RenderDrawingPayload } from '../jobs/tasks.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Storage } from '../storage/storage.ts';
import { findDrawingText } from './db.ts';
import {
  type DrawingExportResult,
  dropOldExports,
  EXPORTS_KEPT,
  exportKey,
  PREVIEW_ABOVE_BYTES,
  PREVIEW_SIDE,
  type SavedImageResult,
} from './files.ts';

export type DrawingRenderDeps = { pool: Pool; storage: Storage; renderer: RenderPool };

/** The title as a file name: letters, digits, dashes and underscores, then `.png`. */
const fileNameOf = (title: string, drawingId: string) =>
  `${
    title
      .normalize('NFKD')
      .replace(/[^\w-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || `drawing-${drawingId}`
  }.png`;

/** Why the thread stopped, in the drawing's words, with what to change. */
function whyNot(err: unknown): never {
  const change = 'use fewer or shorter strokes, or a smaller scale, and ask again.';
  if (err instanceof RenderTimedOut)
    throw new JobFailure(
      `The drawing took longer than ${err.timeoutMs / 1000} s to draw and was stopped: ${change}`,
    );
  if (err instanceof RenderOutOfMemory)
    throw new JobFailure(
      `The drawing needed more than the ${err.heapMb} MB a render thread may use: ${change}`,
    );
  throw err;
}

/** One attempt of a drawing render job. */
export async function renderDrawingJob(
  deps: DrawingRenderDeps,
  job: RenderDrawingPayload,
  finish: FinishInside,
): Promise<DrawingExportResult | SavedImageResult> {
  const row = await findDrawingText(deps.pool, job.account_id, job.drawing_id);
  if (!row) throw new JobFailure('The drawing was deleted before it was drawn.');
  if (row.version !== job.version)
    throw new JobFailure(
      `The drawing changed while waiting (version ${row.version} now, ${job.version} asked for); ask again.`,
    );
  const exporting = job.target === 'export';
  const file = await deps.renderer
    .drawing({
      drawing: {
        width: row.width,
        height: row.height,
        background: row.background,
        strokes_json: row.strokes_json,
      },
      format: job.format,
      scale: job.scale,
      transparent: job.transparent,
      ...(exporting ? { preview: { above: PREVIEW_ABOVE_BYTES, side: PREVIEW_SIDE } } : {}),
    })
    .catch(whyNot);
  const size = { width: file.width, height: file.height, bytes: file.bytes.length };

  if (exporting) {
    const key = (f: 'drawing' | 'preview') => exportKey(job.account_id, job.job_id, f, job.format);
    await deps.storage.put(key('drawing'), Readable.from([file.bytes]));
    if (file.preview) await deps.storage.put(key('preview'), Readable.from([file.preview]));
    const result: DrawingExportResult = { format: job.format, ...size, preview: !!file.preview };
    // Finished first, so the caller has its answer while older exports are let go: the
    // account's EXPORTS_KEPT newest stay, trimmed here rather than by the API so an export
    // whose caller stopped waiting counts too.
    await withTransaction(deps.pool, (tx) => finish(tx, result));
    await dropOldExports(deps, { accountId: job.account_id, keep: EXPORTS_KEPT });
    return result;
  }

  const key = `drawings/${job.account_id}/${randomUUID()}.png`;
  await deps.storage.put(key, Readable.from([file.bytes]));
  try {
    return await withTransaction(deps.pool, async (tx) => {
      const asset = await fileMadeAsset(
        tx,
        {
          accountId: job.account_id,
          brandId: row.brand_id,
          kind: 'image',
          mime: 'image/png',
          bytes: size.bytes,
          filename: fileNameOf(row.title, row.id),
          sha256: createHash('sha256').update(file.bytes).digest('hex'),
          width: size.width,
          height: size.height,
          durationS: null,
          storageKey: key,
          altText: row.title,
        },
        { what: "The drawing's image", retry: 'save it again' },
      );
      const result: SavedImageResult = { asset_id: String(asset.id), ...size };
      // The asset and the job's success commit together, or neither does.
      await finish(tx, result);
      return result;
    });
  } catch (err) {
    await deps.storage.delete(key).catch(() => undefined);
    if (err instanceof DomainError) throw new JobFailure(err.message);
    throw err;
  }
}
