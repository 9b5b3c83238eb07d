// Sending a reply (the `reply` job, publish pool): the suggestion's connected account answers
// the third party's post through its connector, under an idempotency key that is the
// suggestion's own, so a retried job (after a crash, or after the platform accepted the
// first try) finds the reply already sent instead of sending a second. The suggestion, its
// audit entry and the job's success commit together.
import { recordAudit } from '../audit/db.ts';
import { type ReadingDeps, readThrough } from '../connections/reading.ts';
import { withTransaction } from '../db/pool.ts';
import { type FinishInside, JobFailure } from '../jobs/service.ts';
import type { SendReplyPayload } from '../jobs/tasks.ts';
import { recordReplySent, suggestionToSend } from './db.ts';

/** A suggestion's reply key: the same for every try, so the platform keeps one reply. */
export const replyKey = (suggestionId: string) => `reply-${suggestionId}`;

export async function sendReply(
  deps: ReadingDeps,
  job: SendReplyPayload,
  finish: FinishInside,
): Promise<Record<string, unknown>> {
  const row = await suggestionToSend(deps.pool, job.suggestion_id);
  if (!row || row.account_id !== job.account_id) throw new JobFailure('The suggestion is gone.');
  if (row.status === 'replied')
    return { suggestion_id: row.id, external_id: row.reply_external_id, url: row.reply_url };
  if (row.status === 'dismissed') throw new JobFailure('The suggestion was dismissed.');
  if (row.account_status !== 'active')
    throw new JobFailure(`The connected ${row.platform} account ${row.handle} needs reconnecting.`);
  if (!row.reply_text || !row.reply_requested_at)
    throw new JobFailure('No reply was asked for this suggestion.');
  const done = await readThrough(
    deps,
    {
      id: row.connected_account_id,
      platform: row.platform,
      handle: row.handle,
      credentials: row.credentials,
    },
    'reply',
    'Sending a reply',
    async (connector, access) => ({
      sent: await connector.reply(access, {
        to: { id: row.external_id, authorHandle: row.author_handle, replyRef: row.reply_ref },
        text: row.reply_text!,
        idempotencyKey: replyKey(row.id),
        requestedAt: row.reply_requested_at!,
      }),
    }),
  );
  if (done.outcome === 'throttled')
    // Tried again by the job's own backoff; the key keeps it one reply.
    throw new Error(`the platform asked to wait ${Math.ceil(done.retryAfterMs / 1000)} s`);
  if (done.outcome === 'skipped') throw new JobFailure(`The reply was not sent: ${done.reason}`);
  const result = {
    suggestion_id: row.id,
    external_id: done.sent.externalPostId,
    url: done.sent.permalinkUrl,
  };
  await withTransaction(deps.pool, async (tx) => {
    await recordReplySent(tx, row.id, {
      externalId: done.sent.externalPostId,
      url: done.sent.permalinkUrl,
    });
    await recordAudit(tx, {
      accountId: row.account_id,
      postId: row.post_id,
      action: 'reply_sent',
      actor: job.actor,
      detail: { ...result, job_id: job.job_id, platform: row.platform },
    });
    await finish(tx, result);
  });
  return result;
}
