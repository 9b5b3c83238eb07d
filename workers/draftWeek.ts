// Writes a week of drafts (core/generation/week.ts) as an attempt of its job.
import type { GenerationDeps } from '../core/generation/service.ts';
import { runDraftWeek } from '../core/generation/service.ts';
import { DraftWeekPayload } from '../core/jobs/tasks.ts';
import { jobTask } from './jobTask.ts';

export const draftWeekTask = (deps: GenerationDeps) =>
  jobTask({
    pool: deps.pool,
    payload: DraftWeekPayload,
    what: 'draft_week',
    lastAttemptError:
      "The week's drafts could not be written; ask again, and if it fails again, tell the operator (the worker log has the details).",
    work: (job, report, finish) => runDraftWeek(deps, job, report, finish),
  });
