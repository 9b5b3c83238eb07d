// Starting a video export (MCP export_video) and reading any job (MCP job_status) as the API
// answers them: the job record of core/jobs/, with an export's asset addresses filled in.
import { ownedAssets } from '../assets/service.ts';
import { signVideoFrameUrl, verifySignedSubject, videoFrameSubject } from '../assets/signedUrls.ts';
import type { Notifications } from '../db/notifications.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { Job, JobStatusInput } from '../jobs/schema.ts';
import {
  jobStatus,
  PREVIEW_KEEP_HOURS,
  startAndAwait,
  startJob,
  succeededJob,
} from '../jobs/service.ts';
import { enqueueVideoExport, enqueueVideoPreview } from '../jobs/tasks.ts';
import { jobView } from '../jobs/view.ts';
import { DomainError, invalid, notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import type { DesignRow } from './db.ts';
import type { DesignRef } from './schema.ts';
import { type DesignCaller, resolveDesign } from './service.ts';
import { isVideoLayout, type VideoLayout } from './videoLayout.ts';
import type { PosterFrames } from './videoPreview.ts';

export type JobDeps = {
  pool: Pool;
  notifications: Notifications;
  publicBaseUrl: string;
  /** Signs the exported asset's address; without it, `signed_url` is null. */
  urlKey?: Buffer;
};

/**
 * MCP export_video: queues the export of a video design's current layout_version and answers
 * its job at once. The same design at the same version again answers that job (running or
 * done), unless it failed or its video was deleted: then a new export starts.
 */
export async function startVideoExport(
  deps: JobDeps,
  caller: DesignCaller,
  ref: DesignRef,
): Promise<Job> {
  const job = await withTransaction(deps.pool, async (tx) => {
    const design = await resolveDesign(tx, caller, ref);
    if (!isVideoLayout(design.layout))
      throw new DomainError(
        422,
        'not_a_video',
        `Design ${design.id} is an image design; export_video exports video designs (canvas type "video").`,
      );
    const { job } = await startJob(
      tx,
      {
        accountId: caller.accountId,
        kind: 'video_export',
        subject: `design:${design.id}@${design.layout_version}`,
      },
      (db, jobId) =>
        enqueueVideoExport(db, {
          job_id: jobId,
          design_id: design.id,
          layout_version: design.layout_version,
        }),
      // An export whose video was deleted from the library is made again.
      async (result) =>
        (await ownedAssets(tx, caller.accountId, [String(result.asset_id)])).length === 0,
    );
    return job;
  });
  return jobView(deps, job);
}

/** MCP job_status: the caller's job, waiting up to `wait_s` for a change. */
export async function getJobStatus(
  deps: JobDeps,
  caller: { accountId: string },
  input: JobStatusInput,
): Promise<Job> {
  return jobView(deps, await jobStatus(deps, caller, input));
}

/** How long preview_design waits for poster frames before asking the caller to come back. */
export const PREVIEW_WAIT_S = 40;

/**
 * MCP preview_design on a video design: the frames at `times` (seconds, each before the end),
 * drawn by a render worker while this call waits on the job (the API never draws). The same
 * times of the same layout_version within the hour answer the frames drawn already.
 */
export async function previewVideo(
  deps: JobDeps,
  caller: DesignCaller,
  design: DesignRow,
  times: readonly number[],
): Promise<{ times: number[]; frames: Buffer[]; urls: (string | null)[] }> {
  const layout = design.layout as unknown as VideoLayout;
  const duration = layout.canvas.duration_s;
  // To the millisecond: 1.0 and 1.0001 are the same frame and the same job.
  const rounded = times.map((t) => Math.round(t * 1000) / 1000);
  rounded.forEach((t, i) => {
    if (t >= duration)
      throw invalid(['times', i], `must be before the video's duration_s (${duration})`);
  });
  // In order, each once: [1, 0] and [0, 1, 1] ask for the same frames, so the same job.
  const at = [...new Set(rounded)].sort((a, b) => a - b);
  const { job } = await startAndAwait(
    deps,
    caller,
    (tx) =>
      startJob(
        tx,
        {
          accountId: caller.accountId,
          kind: 'video_preview',
          subject: `design:${design.id}@${design.layout_version}:${at.join(',')}`,
        },
        (db, jobId) =>
          enqueueVideoPreview(db, {
            job_id: jobId,
            design_id: design.id,
            layout_version: design.layout_version,
            times: at,
          }),
      ),
    {
      waitS: PREVIEW_WAIT_S,
      code: 'preview',
      stillRunning: `The frames are still being drawn after ${PREVIEW_WAIT_S} s (the render workers are busy); ask again with the same times to get them.`,
    },
  );
  const { frames } = job.result as unknown as PosterFrames;
  const until = new Date(new Date(job.finished_at!).getTime() + PREVIEW_KEEP_HOURS * 3_600_000);
  return {
    times: at,
    frames: frames.map((f) => Buffer.from(f.jpeg_base64, 'base64')),
    // Each frame also at a signed address, for a client whose answer cannot carry them all.
    urls: frames.map((_, i) =>
      deps.urlKey ? signVideoFrameUrl(deps.publicBaseUrl, deps.urlKey, job.job_id, i, until) : null,
    ),
  };
}

/**
 * GET /media/video-frames/{job_id}/{index}: a poster frame (JPEG) for the holder of its signed
 * address. A wrong or expired signature, or a preview deleted since, answers 404.
 */
export async function readSignedVideoFrame(
  deps: { pool: Pool; urlKey?: Buffer },
  jobId: string,
  index: number,
  expires: number,
  sig: string,
): Promise<Buffer> {
  if (
    !deps.urlKey ||
    !isId(jobId) ||
    !verifySignedSubject(deps.urlKey, videoFrameSubject(jobId, index), expires, sig)
  )
    throw notFound('Frame');
  const job = await succeededJob(deps.pool, jobId, 'video_preview');
  const frame = (job?.result as PosterFrames | null | undefined)?.frames[index];
  if (!frame) throw notFound('Frame');
  return Buffer.from(frame.jpeg_base64, 'base64');
}
