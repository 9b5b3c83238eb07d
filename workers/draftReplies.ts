// Drafts replies to reply suggestions (core/engagement/drafts.ts) as an attempt of its job.
import { runReplyDrafts } from '../core/engagement/service.ts';
import type { GenerationDeps } from '../core/generation/service.ts';
import { DraftRepliesPayload } from '../core/jobs/tasks.ts';
import { jobTask } from './jobTask.ts';

export const draftRepliesTask = (deps: GenerationDeps) =>
  jobTask({
    pool: deps.pool,
    payload: DraftRepliesPayload,
    what: 'reply drafts',
    lastAttemptError:
      'The replies could not be drafted; ask again, and if it fails again, tell the operator (the worker log has the details).',
    work: (job, _report, finish) => runReplyDrafts(deps, job, finish),
  });
