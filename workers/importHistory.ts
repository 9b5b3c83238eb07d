// Reads a brand's past posts into its memory (core/brandMemory/historyImport.ts) as an attempt
// of its job.
import { type HistoryDeps, runHistoryImport } from '../core/brandMemory/service.ts';
import { ImportHistoryPayload } from '../core/jobs/tasks.ts';
import { jobTask } from './jobTask.ts';

export const importHistoryTask = (deps: HistoryDeps) =>
  jobTask({
    pool: deps.pool,
    payload: ImportHistoryPayload,
    what: 'history import',
    lastAttemptError:
      'The history could not be imported; ask again, and if it fails again, tell the operator (the worker log has the details).',
    work: (job, report, finish) => runHistoryImport(deps, job, report, finish),
  });
