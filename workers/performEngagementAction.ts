// Runs an approved inbox action (core/engagement/act.ts) as an attempt of its job.
import type { ReadingDeps } from '../core/connections/service.ts';
import { performEngagementAction } from '../core/engagement/service.ts';
import { EngagementActionPayload } from '../core/jobs/tasks.ts';
import { jobTask } from './jobTask.ts';

export const performEngagementActionTask = (deps: ReadingDeps) =>
  jobTask({
    pool: deps.pool,
    payload: EngagementActionPayload,
    what: 'engagement action',
    lastAttemptError:
      'The action could not be made; check the connected account (a retry never makes it twice).',
    work: (job) => performEngagementAction(deps, job),
  });
