// Draws the poster frames of a video design (core/video/posterFrames.ts) as an attempt of
// its job.

import { PreviewVideoPayload } from '../core/jobs/tasks.ts';
import { posterFrames, type VideoExportDeps } from '../core/video/service.ts';
import { jobTask } from './jobTask.ts';

export const previewVideoTask = (deps: VideoExportDeps) =>
  jobTask({
    pool: deps.pool,
    payload: PreviewVideoPayload,
    what: 'preview',
    lastAttemptError:
      'The frames could not be drawn; ask again, and if it fails again, tell the operator (the worker log has the details).',
    work: (job, report) => posterFrames(deps, job, report),
  });
