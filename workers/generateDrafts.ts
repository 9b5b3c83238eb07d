// Writes the drafts of one generation request (core/generation/job.ts) as an attempt of its
// job.
import { type GenerationDeps, runGeneration } from '../core/generation/service.ts';
import { GenerateDraftsPayload } from '../core/jobs/tasks.ts';
import { jobTask } from './jobTask.ts';

export const generateDraftsTask = (deps: GenerationDeps) =>
  jobTask({
    pool: deps.pool,
    payload: GenerateDraftsPayload,
    what: 'generation',
    lastAttemptError:
      'The drafts could not be written; ask again, and if it fails again, tell the operator (the worker log has the details).',
    work: (job, report, finish) => runGeneration(deps, job, report, finish),
  });
