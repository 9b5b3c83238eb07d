// Drawing files (issue 19), the worker's side: the drawing render job (TASK.renderDrawing) draws one version of
// a drawing in a render thread, as an export (a PNG or SVG kept an hour under the job's own
// folder, served by a signed address) or as a library image (a PNG asset of the drawing's
// brand, its title as alt text, counted against the storage quota). The API's side, which
// starts the job and waits on it, is ./exports.ts.
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { RenderOutOfMemory, type RenderPool, RenderTimedOut } from '../../render/renderPool.ts';
import { STORAGE_QUOTA_BYTES } from '../accounts/plans.ts';
import { requireAccount } from '../accounts/service.ts';
import { insertAssetWithinQuota } from '../assets/db.ts';
import { quotaExceeded } from '../assets/quota.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { DomainError } from '../errors.ts';
import { type FinishInside, JobFailure } from '../jobs/service.ts';
import type { RenderDrawingPayload } from '../jobs/tasks.ts';
import type { Storage } from '../storage/storage.ts';
import { findDrawingText } from './db.ts';

export type DrawingFileDeps = { pool: Pool; storage: Storage; renderer: RenderPool };

export type DrawingFormat = RenderDrawingPayload['format'];

export const MIME: Record<DrawingFormat, string> = { png: 'image/png', svg: 'image/svg+xml' };

/**
 * The largest file an MCP answer carries inline (base64 in the JSON-RPC message); a larger
 * PNG is shown by a preview of PREVIEW_SIDE pixels, a larger SVG only by its address.
 */
export const MAX_INLINE_BYTES = 4 * 1024 * 1024;
export const PREVIEW_SIDE = 1024;

/** An export's files live in a folder of their job, deleted with the job. */
export const exportFolder = (accountId: string, jobId: string) =>
  `drawing-exports/${accountId}/${jobId}/`;
export const exportKey = (
  accountId: string,
  jobId: string,
  file: 'drawing' | 'preview',
  format: DrawingFormat,
) => `${exportFolder(accountId, jobId)}${file}.${file === 'preview' ? 'png' : format}`;

/** What a succeeded export job's `result` holds (the API adds the address). */
export type ExportResult = {
  format: DrawingFormat;
  mime: string;
  width: number;
  height: number;
  bytes: number;
  /** Whether a smaller PNG was kept to show inline (the file exceeded MAX_INLINE_BYTES). */
  preview: boolean;
};

/** What a succeeded library save's `result` holds. */
export type SaveResult = { asset_id: string; width: number; height: number; bytes: number };

/** The title as a file name: letters, digits, dashes and underscores, then `.png`. */
const fileNameOf = (title: string, drawingId: string) =>
  `${
    title
      .normalize('NFKD')
      .replace(/[^\w-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || `drawing-${drawingId}`
  }.png`;

/** One attempt of a drawing render job. */
export async function renderDrawingJob(
  deps: DrawingFileDeps,
  job: RenderDrawingPayload,
  finish: FinishInside,
): Promise<ExportResult | SaveResult> {
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
      ...(exporting ? { preview: { above: MAX_INLINE_BYTES, side: PREVIEW_SIDE } } : {}),
    })
    .catch((err) => {
      if (err instanceof RenderTimedOut || err instanceof RenderOutOfMemory)
        throw new JobFailure(
          `${err.message}: use fewer strokes or points, or a smaller scale, and ask again.`,
        );
      throw err;
    });
  const size = { width: file.width, height: file.height, bytes: file.bytes.length };

  if (exporting) {
    const key = (f: 'drawing' | 'preview') => exportKey(job.account_id, job.job_id, f, job.format);
    await deps.storage.put(key('drawing'), Readable.from([file.bytes]));
    if (file.preview) await deps.storage.put(key('preview'), Readable.from([file.preview]));
    return { format: job.format, mime: MIME[job.format], ...size, preview: !!file.preview };
  }

  const key = `drawings/${job.account_id}/${randomUUID()}.png`;
  await deps.storage.put(key, Readable.from([file.bytes]));
  try {
    const { plan } = await requireAccount(deps.pool, job.account_id);
    const quota = STORAGE_QUOTA_BYTES[plan];
    return await withTransaction(deps.pool, async (tx) => {
      const asset = await insertAssetWithinQuota(
        tx,
        {
          accountId: job.account_id,
          brandId: row.brand_id,
          kind: 'image',
          mime: MIME.png,
          bytes: size.bytes,
          filename: fileNameOf(row.title, row.id),
          sha256: createHash('sha256').update(file.bytes).digest('hex'),
          width: size.width,
          height: size.height,
          durationS: null,
          storageKey: key,
          altText: row.title,
        },
        quota,
      );
      if (!asset)
        throw await quotaExceeded(tx, job.account_id, {
          lead: `The drawing's image (${size.bytes} bytes) would exceed the storage quota of ${quota} bytes`,
          advice: 'delete assets, then save it again.',
        });
      const result: SaveResult = { asset_id: String(asset.id), ...size };
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
