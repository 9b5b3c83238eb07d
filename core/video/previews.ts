// Previews of a design by its kind: a video design's poster frames at given times, drawn by a
// render worker as a job while the call waits (the API never draws), each frame also at a
// signed address; a Canvas design's page is the designs concept's (previewPage). Callers: MCP
// preview_design, the dashboard's preview, and the signed frame route of api/media.ts.
import { signVideoFrameUrl, verifySignedSubject, videoFrameSubject } from '../assets/service.ts';
import type { Pool } from '../db/pool.ts';
import type { DesignCaller, DesignRef, DesignRow, VideoLayout } from '../designs/schema.ts';
import {
  type DesignDeps,
  isVideoLayout,
  type Preview,
  previewPage,
  resolveDesign,
  withRenderSlot,
} from '../designs/service.ts';
import {
  type JobDeps,
  PREVIEW_KEEP_HOURS,
  startAndAwait,
  startJob,
  succeededJob,
} from '../jobs/service.ts';
import { enqueueVideoPreview } from '../jobs/tasks.ts';
import { invalid, notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import type { Storage } from '../storage/storage.ts';
import type { JobAddresses } from './jobView.ts';
import type { PosterFrames } from './schema.ts';

/**
 * A design previewed by its kind: a video design's poster frames at `times`, drawn here; a
 * Canvas design's page, by the designs concept (previewPage).
 */
export async function previewDesign(
  deps: DesignDeps & JobDeps & JobAddresses & { storage: Storage },
  caller: DesignCaller,
  ref: DesignRef,
  show: { page: number; times?: number[] },
): Promise<Preview> {
  const design = await resolveDesign(deps.pool, caller, ref);
  const head = { design_id: design.id, layout_version: design.layout_version };
  if (isVideoLayout(design.layout)) {
    // Poster frames take a render slot like any design operation that waits for drawing.
    const { times, frames, urls } = await withRenderSlot(deps.renders, caller.accountId, () =>
      previewVideo(deps, caller, design, show.times ?? [0]),
    );
    const none = { page: null, pages: null, media_path: null, preview_url: null };
    return { ...head, ...none, times, images: frames, image_urls: urls, render_warnings: [] };
  }
  if (show.times)
    throw invalid(['times'], 'times are for video designs; a Canvas design previews a page');
  return previewPage(deps, caller.accountId, design, show.page);
}

/** How long preview_design waits for poster frames before asking the caller to come back. */
export const PREVIEW_WAIT_S = 40;

/**
 * MCP preview_design on a video design: the frames at `times` (seconds, each before the end),
 * drawn by a render worker while this call waits on the job (the API never draws). The same
 * times of the same layout_version within the hour answer the frames drawn already.
 */
export async function previewVideo(
  deps: JobDeps & JobAddresses,
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
