// Sends one reply (core/engagement/send.ts) as an attempt of its job.
import type { ReadingDeps } from '../core/connections/service.ts';
import { sendReply } from '../core/engagement/service.ts';
import { SendReplyPayload } from '../core/jobs/tasks.ts';
import { jobTask } from './jobTask.ts';

export const sendReplyTask = (deps: ReadingDeps) =>
  jobTask({
    pool: deps.pool,
    payload: SendReplyPayload,
    what: 'reply',
    lastAttemptError:
      'The reply could not be sent; check the connected account, then ask again (the same reply is never sent twice).',
    work: (job) => sendReply(deps, job),
  });
