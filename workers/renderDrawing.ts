// Draws a drawing as an export file or a library image (core/drawings/, renderDrawingJob) as an
// attempt of its job.
import { type DrawingRenderDeps, renderDrawingJob } from '../core/drawings/service.ts';
import { RenderDrawingPayload } from '../core/jobs/tasks.ts';
import { jobTask } from './jobTask.ts';

export const renderDrawingTask = (deps: DrawingRenderDeps) =>
  jobTask({
    pool: deps.pool,
    payload: RenderDrawingPayload,
    what: 'drawing',
    lastAttemptError:
      'The drawing could not be drawn; ask again, and if it fails again, tell the operator (the worker log has the details).',
    work: (job, _report, finish) => renderDrawingJob(deps, job, finish),
  });
