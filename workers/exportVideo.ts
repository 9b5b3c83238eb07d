// Exports one video design (core/video/export.ts) as an attempt of its job.

import { ExportVideoPayload } from '../core/jobs/tasks.ts';
import { exportVideo, type VideoExportDeps } from '../core/video/service.ts';
import { jobTask } from './jobTask.ts';

export const exportVideoTask = (deps: VideoExportDeps) =>
  jobTask({
    pool: deps.pool,
    payload: ExportVideoPayload,
    what: 'export',
    lastAttemptError:
      'The export failed unexpectedly on its last attempt; start it again, and if it fails again, tell the operator (the worker log has the details).',
    work: (job, report, finish) => exportVideo(deps, job, report, finish),
  });
