// Poster frames of a video design (MCP preview_design with `times`), drawn by a `render` pool
// worker as a job: the composition prepared as an export prepares it (only the layers shown at
// those times), then one small ffmpeg run a time writes the frame at rest as a JPEG. The
// frames go back in the job's result; the reconciler deletes them an hour later.
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { posterArgs } from '../../render/videoCompose.ts';
import type { ProgressReport } from '../jobs/service.ts';
import type { PreviewVideoPayload } from '../jobs/tasks.ts';
import { runMediaTool, safeInput } from '../media/tools.ts';
import { workFolder } from '../media/workFolders.ts';
import { prepareComposition, requestedVideo, scripted, type VideoExportDeps } from './export.ts';
import type { PosterFrames } from './schema.ts';

/** How wide a poster frame is drawn, as Canvas previews are. */
export const POSTER_WIDTH = 480;

export async function posterFrames(
  deps: VideoExportDeps,
  request: PreviewVideoPayload,
  report: ProgressReport,
): Promise<PosterFrames> {
  const { design, layout } = await requestedVideo(deps.pool, request);
  const work = await workFolder('preview');
  try {
    const scale = (p: number, stage: string) => report(p / 2, stage);
    const composition = await prepareComposition(deps, design, layout, work, scale, request.times);
    const frames: PosterFrames['frames'] = [];
    for (const [i, t] of request.times.entries()) {
      const file = path.join(work, `poster-${i}.jpg`);
      await runMediaTool(
        deps.tools.ffmpegPath,
        await scripted(
          posterArgs(composition, t, POSTER_WIDTH, file, safeInput),
          work,
          `filters-${i}`,
        ),
        { timeoutMs: deps.tools.timeoutMs, maxOutputBytes: 1024 * 1024, nice: 10 },
      );
      frames.push({ time_s: t, jpeg_base64: (await readFile(file)).toString('base64') });
      await report(0.5 + (0.5 * (i + 1)) / request.times.length, 'drawing_frames');
    }
    return { frames };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
