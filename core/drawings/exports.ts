// Drawing files, the API's side: export_drawing, save_drawing_to_library and
// attach_drawing_to_post start a drawing render job and wait on it, for the API never draws
// (./renderJob.ts is the worker's side, ./files.ts what both know of the files). Asking
// again for the same version, format, scale and background answers the job already done:
// an export within its hour, a saved image for as long as it stays in the library.
import { MAX_EXPORT_PIXELS, scaledSize } from '../../render/drawingSize.ts';
import {
  assertStorageLeft,
  assetContentUrl,
  drawingExportSubject,
  ownedAssets,
  signAssetUrl,
  signDrawingExportUrl,
  verifySignedSubject,
} from '../assets/service.ts';
import type { Notifications } from '../db/notifications.ts';
import type { Pool } from '../db/pool.ts';
import type { Job } from '../jobs/schema.ts';
import { startAndAwait, startJob, succeededJob } from '../jobs/service.ts';
import {
  DRAWING_JOB_KIND,
  enqueueDrawingRender,
  type RenderDrawingPayload,
} from '../jobs/tasks.ts';
import { conflict, invalid, notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import type { Post } from '../posts/schema.ts';
import { attachAsset, type Caller, postTaking } from '../posts/service.ts';
import { readAll, type Storage } from '../storage/storage.ts';
import type { DrawingHead } from './db.ts';
import {
  type DrawingExportResult,
  EXPORTS_KEPT,
  exportDeletedAt,
  exportKey,
  MIME,
  type SavedImageResult,
} from './files.ts';
import { drawingHeadOf } from './head.ts';
import type {
  AttachDrawingInput,
  DrawingExport,
  DrawingFormat,
  ExportDrawingInput,
  SaveDrawingInput,
  SavedDrawing,
} from './schema.ts';

/** Runs `work` in one of the account's render slots, or refuses it (429) when all are taken. */
export type RenderSlot = <T>(accountId: string, work: () => Promise<T>) => Promise<T>;

export type DrawingFileApiDeps = {
  pool: Pool;
  notifications: Notifications;
  storage: Storage;
  publicBaseUrl: string;
  /** Signs the addresses; without it, `signed_url` is null. */
  urlKey?: Buffer;
  /**
   * Runs a call in one of the account's render slots, shared with its designs' renders (the
   * process's render waits), or refuses it: a bound on one account's calls waiting at once.
   */
  renderSlot: RenderSlot;
  /** How long a call waits for its drawing (DRAWING_WAIT_S unless given). */
  waitS?: number;
};

/** How long a call waits for its drawing before asking the caller to come back. */
export const DRAWING_WAIT_S = 40;

type Wanted = Pick<RenderDrawingPayload, 'format' | 'scale' | 'transparent' | 'target'>;

/** A PNG over MAX_EXPORT_PIXELS is refused before anything is queued. */
function assertPixels(drawing: DrawingHead, scale: number) {
  const { width, height } = scaledSize(drawing, scale);
  if (width * height <= MAX_EXPORT_PIXELS) return;
  const largest =
    Math.floor(Math.sqrt(MAX_EXPORT_PIXELS / (drawing.width * drawing.height)) * 100) / 100;
  throw invalid(
    ['scale'],
    `at scale ${scale} the ${drawing.width} × ${drawing.height} drawing is ${width} × ${height} pixels; a PNG holds at most ${MAX_EXPORT_PIXELS.toLocaleString('en-US')} pixels (as many as 4096 × 4096), so the largest scale for it is ${largest}`,
  );
}

/**
 * Starts (or finds) the job drawing `drawing` as `wanted`, and waits for it. `outlived` says
 * whether what a succeeded job made is gone (then it is drawn again).
 */
function drawnJob(
  deps: DrawingFileApiDeps,
  caller: Caller,
  drawing: DrawingHead,
  wanted: Wanted,
  outlived: (result: Record<string, unknown>, jobId: string) => Promise<boolean>,
): Promise<{ job: Job; created: boolean }> {
  const kind = DRAWING_JOB_KIND[wanted.target];
  const background = wanted.transparent ? 'transparent' : 'background';
  const subject = `drawing:${drawing.id}@${drawing.version}:${wanted.target}:${wanted.format}:${wanted.scale}:${background}`;
  return deps.renderSlot(caller.accountId, () =>
    startAndAwait(
      deps,
      caller,
      (tx) =>
        startJob(
          tx,
          { accountId: caller.accountId, kind, subject },
          (db, jobId, ahead) =>
            enqueueDrawingRender(
              db,
              {
                job_id: jobId,
                account_id: caller.accountId,
                drawing_id: drawing.id,
                version: drawing.version,
                ...wanted,
              },
              ahead,
            ),
          outlived,
        ),
      {
        waitS: deps.waitS ?? DRAWING_WAIT_S,
        code: 'drawing',
        stillRunning: `The drawing is still being drawn after ${deps.waitS ?? DRAWING_WAIT_S} s (the render workers are busy); ask again with the same arguments to get it.`,
      },
    ),
  );
}

/** An export as export_drawing answers it, and whether a preview was kept beside the file. */
export type DrawingExported = DrawingExport & { preview: boolean };

/**
 * MCP export_drawing: the drawing's current version as a PNG or SVG file kept an hour (an
 * account keeps its EXPORTS_KEPT newest), with a signed address that expires with the file.
 * readExportFile reads the file, or its preview, back.
 */
export async function exportDrawing(
  deps: DrawingFileApiDeps,
  caller: Caller,
  input: ExportDrawingInput,
): Promise<DrawingExported> {
  const drawing = await drawingHeadOf(deps.pool, caller, input.drawing_id);
  if (input.format === 'png') assertPixels(drawing, input.scale);
  const { format, scale, transparent } = input;
  const { job } = await drawnJob(
    deps,
    caller,
    drawing,
    { format, scale, transparent, target: 'export' },
    async (_result, jobId) =>
      (await deps.storage.size(exportKey(caller.accountId, jobId, 'drawing', format))) ===
      undefined,
  );
  const result = job.result as unknown as DrawingExportResult;
  const address =
    deps.urlKey &&
    signDrawingExportUrl(
      deps.publicBaseUrl,
      deps.urlKey,
      job.job_id,
      exportDeletedAt(new Date(job.finished_at!)),
    );
  return {
    job_id: job.job_id,
    drawing_id: drawing.id,
    version: drawing.version,
    format,
    mime: MIME[format],
    width: result.width,
    height: result.height,
    bytes: result.bytes,
    signed_url: address ? address.url : null,
    expires_at: address ? address.expires.toISOString() : null,
    preview: result.preview,
  };
}

/**
 * The caller's export file (or its preview PNG), as exportDrawing answered it; 409
 * `export_gone` when it was deleted since (newer exports of the account let it go).
 */
export const readExportFile = (
  deps: Pick<DrawingFileApiDeps, 'storage'>,
  caller: Caller,
  exported: { job_id: string; format: DrawingFormat },
  file: 'drawing' | 'preview',
) =>
  readAll(deps.storage, exportKey(caller.accountId, exported.job_id, file, exported.format)).catch(
    () => {
      throw conflict(
        'export_gone',
        `Export ${exported.job_id} was deleted as it was answered (an account keeps its ${EXPORTS_KEPT} newest exports); ask again to draw it anew.`,
      );
    },
  );

/**
 * GET /media/drawing-exports/{job_id}: an export's file for the holder of its signed address.
 * A wrong or expired signature, or an export deleted since, answers 404.
 */
export async function readSignedExport(
  deps: Pick<DrawingFileApiDeps, 'pool' | 'storage' | 'urlKey'>,
  jobId: string,
  expires: number,
  sig: string,
) {
  if (
    !deps.urlKey ||
    !isId(jobId) ||
    !verifySignedSubject(deps.urlKey, drawingExportSubject(jobId), expires, sig)
  )
    throw notFound('Export');
  const job = await succeededJob(deps.pool, jobId, 'drawing_export');
  if (!job) throw notFound('Export');
  const { format } = job.result as unknown as DrawingExportResult;
  const stream = await deps.storage
    .get(exportKey(job.account_id, job.id, 'drawing', format))
    .catch(() => {
      throw notFound('Export');
    });
  return { mime: MIME[format], stream };
}

/** The drawing's current version as a PNG image asset, drawn once per version and scale. */
async function savedImage(
  deps: DrawingFileApiDeps,
  caller: Caller,
  drawing: DrawingHead,
  scale: number,
): Promise<SavedDrawing> {
  assertPixels(drawing, scale);
  await assertStorageLeft(deps.pool, caller.accountId, 'save it again');
  const { job, created } = await drawnJob(
    deps,
    caller,
    drawing,
    { format: 'png', scale, transparent: false, target: 'library' },
    // An image deleted from the library is drawn again.
    async (result) =>
      (await ownedAssets(deps.pool, caller.accountId, [String(result.asset_id)])).length === 0,
  );
  const result = job.result as unknown as SavedImageResult;
  return {
    drawing_id: drawing.id,
    version: drawing.version,
    asset_id: result.asset_id,
    alt_text: drawing.title,
    width: result.width,
    height: result.height,
    bytes: result.bytes,
    media_path: assetContentUrl(deps.publicBaseUrl, result.asset_id),
    signed_url: deps.urlKey ? signAssetUrl(deps.publicBaseUrl, deps.urlKey, result.asset_id) : null,
    reused: !created,
  };
}

/** MCP save_drawing_to_library: the drawing as a PNG image of its brand, counted as storage. */
export async function saveDrawingToLibrary(
  deps: DrawingFileApiDeps,
  caller: Caller,
  input: SaveDrawingInput,
): Promise<SavedDrawing> {
  const drawing = await drawingHeadOf(deps.pool, caller, input.drawing_id);
  return savedImage(deps, caller, drawing, input.scale);
}

/**
 * MCP attach_drawing_to_post: the drawing saved as a library image (once per version) and
 * attached at the end of an unpublished post's media, which returns it to draft as any edit
 * does. Refused before anything is drawn when the post is published or its platform will not
 * take one more image.
 */
export async function attachDrawingToPost(
  deps: DrawingFileApiDeps,
  caller: Caller,
  input: AttachDrawingInput,
): Promise<{ image: SavedDrawing; post: Post }> {
  const drawing = await drawingHeadOf(deps.pool, caller, input.drawing_id);
  await postTaking(deps.pool, caller, input.post_id, 'image');
  const image = await savedImage(deps, caller, drawing, 1);
  return { image, post: await attachAsset(deps.pool, caller, input.post_id, image.asset_id) };
}
