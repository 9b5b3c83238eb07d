// Exports one video design (core/designs/videoExport.ts) as an attempt of its job.
import { exportVideo, type VideoExportDeps } from '../core/designs/videoExport.ts';
import { ExportVideoPayload } from '../core/jobs/tasks.ts';
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
