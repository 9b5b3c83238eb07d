// Sending a reply (the `reply` job, publish pool): the suggestion's connected account answers
// the third party's post through its connector, under an idempotency key that is the
// suggestion's own, so a retried job (after a crash, or after the platform accepted the
// first try) finds the reply already sent instead of sending a second. The suggestion and
// its audit entry commit together, before the job is finished.
import { createHash } from 'node:crypto';
import { recordAction } from '../audit/service.ts';
import type { ReadingDeps } from '../connections/service.ts';
import { withTransaction } from '../db/pool.ts';
import { JobFailure } from '../jobs/service.ts';
import type { SendReplyPayload } from '../jobs/tasks.ts';
import { recordReplySent, suggestionToSend } from './db.ts';
import { writeThrough } from './throughAccount.ts';

/**
 * The idempotency key of a write about one post (a reply, an inbox action): the same for every
 * try, so the platform keeps one; it names the post too, so another install's row of the same
 * number (a fresh database, the same account) is not taken for this one.
 */
export const writeKey = (kind: 'reply' | 'action', id: string, externalId: string) =>
  `${kind}-${id}-${createHash('sha256').update(externalId).digest('hex').slice(0, 16)}`;

export async function sendReply(
  deps: ReadingDeps,
  job: SendReplyPayload,
): Promise<Record<string, unknown>> {
  const row = await suggestionToSend(deps.pool, job.suggestion_id);
  if (!row || row.account_id !== job.account_id) throw new JobFailure('The suggestion is gone.');
  if (row.status === 'replied')
    return { suggestion_id: row.id, external_id: row.reply_external_id, url: row.reply_url };
  if (row.status === 'dismissed') throw new JobFailure('The suggestion was dismissed.');
  if (!row.reply_text || !row.reply_requested_at)
    throw new JobFailure('No reply was asked for this suggestion.');
  const done = await writeThrough(
    deps,
    row,
    'reply',
    'Sending a reply',
    async (connector, access) => ({
      sent: await connector.reply(access, {
        to: { id: row.external_id, authorHandle: row.author_handle, replyRef: row.reply_ref },
        text: row.reply_text!,
        idempotencyKey: writeKey('reply', row.id, row.external_id),
        requestedAt: row.reply_requested_at!,
      }),
    }),
  );
  const result = {
    suggestion_id: row.id,
    external_id: done.sent.externalPostId,
    url: done.sent.permalinkUrl,
  };
  // Kept whatever becomes of this attempt (another may have overtaken it, or the reconciler
  // failed its job): the platform has the reply, so the suggestion is answered.
  await withTransaction(deps.pool, async (tx) => {
    await recordReplySent(tx, row.id, {
      externalId: done.sent.externalPostId,
      url: done.sent.permalinkUrl,
    });
    await recordAction(tx, {
      accountId: row.account_id,
      postId: row.post_id,
      action: 'reply_sent',
      actor: job.actor,
      detail: { ...result, job_id: job.job_id, platform: row.platform },
    });
  });
  return result;
}
