// The files a drawing render job makes, as the API (./exports.ts) and the render
// worker (./renderJob.ts) both know them: where an export's files are stored and for how
// long, and what a succeeded job's `result` holds.

import type { Pool } from '../db/pool.ts';
import { dropFinishedJobs } from '../jobs/service.ts';
import type { Storage } from '../storage/storage.ts';
import type { DrawingFormat } from './schema.ts';

export const MIME: Record<DrawingFormat, string> = { png: 'image/png', svg: 'image/svg+xml' };

/**
 * A PNG export over this many bytes also gets a preview PNG of PREVIEW_SIDE pixels on its
 * long side, to show where the file is too large to hand over whole (an MCP answer).
 */
export const PREVIEW_ABOVE_BYTES = 4 * 1024 * 1024;
export const PREVIEW_SIDE = 1024;

/** An export's files are kept this long after they were drawn, then deleted with the job. */
export const EXPORT_KEEP_HOURS = 1;

/** Exports kept per account: older ones go (files and job) as new ones are drawn. */
export const EXPORTS_KEPT = 8;

/** When an export drawn at `finishedAt` is deleted (its address expires by then). */
export const exportDeletedAt = (finishedAt: Date) =>
  new Date(finishedAt.getTime() + EXPORT_KEEP_HOURS * 3_600_000);

/** An export's files live in a folder of their job, deleted with the job. */
const exportFolder = (accountId: string, jobId: string) => `drawing-exports/${accountId}/${jobId}/`;

export const exportKey = (
  accountId: string,
  jobId: string,
  file: 'drawing' | 'preview',
  format: DrawingFormat,
) => `${exportFolder(accountId, jobId)}${file}.${file === 'preview' ? 'png' : format}`;

/** What a succeeded export's `result` holds (the API adds the address). */
export type DrawingExportResult = {
  format: DrawingFormat;
  width: number;
  height: number;
  bytes: number;
  /** Whether a preview PNG was kept beside the file (it exceeded PREVIEW_ABOVE_BYTES). */
  preview: boolean;
};

/** What a succeeded library save's `result` holds. */
export type SavedImageResult = { asset_id: string; width: number; height: number; bytes: number };

/**
 * Deletes exports past keeping, their files first (core/jobs dropFinishedJobs): the
 * reconciler's cron passes `{hours}`, an export its account's `{accountId, keep}`.
 */
export const dropOldExports = (
  deps: { pool: Pool; storage: Storage },
  past: { hours: number } | { accountId: string; keep: number },
) =>
  dropFinishedJobs(deps.pool, 'drawing_export', past, (job) =>
    deps.storage.deletePrefix(exportFolder(job.account_id, job.id)),
  );
