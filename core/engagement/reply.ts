// One reply to an inbound post, whichever path asks for it (post_reply, an approved inbox
// action): queued once as a job of the publish pool, and what that job answers when done.
import type { Actor } from '../audit/schema.ts';
import { recordAction } from '../audit/service.ts';
import { mastodonReplyText } from '../connectors/service.ts';
import type { Queryable } from '../db/pool.ts';
import type { Job } from '../jobs/schema.ts';
import { startJob } from '../jobs/service.ts';
import { enqueueReplySend } from '../jobs/tasks.ts';
import { conflict, invalid } from '../kernel/errors.ts';
import { CAPABILITIES, LENGTH_UNIT, textLength } from '../kernel/platforms.ts';
import { requestReply, type SuggestionRow } from './db.ts';
import { closeReplyProposals } from './inboxDb.ts';

/** How long post_reply waits for its reply to go out before answering `sending`. */
export const REPLY_WAIT_S = 15;

/** A reply's text as sent is within the platform's limit. */
function checkReplyLength(row: SuggestionRow, sent: string, loc: string) {
  const caps = CAPABILITIES[row.platform];
  const length = textLength(sent, caps.countBy);
  if (length > caps.maxText)
    throw invalid(
      ['body', loc],
      `a ${row.platform} reply holds at most ${caps.maxText} ${LENGTH_UNIT[caps.countBy].unit}; this one has ${length}`,
    );
}

/**
 * Queues an item's one reply with `text`, in the caller's transaction (the item locked): a
 * suggestion has one reply for ever, whichever path asks (post_reply, an approved inbox
 * action); asked again while it is under way, the same job answers. Answers its job's id.
 */
export async function startReply(
  tx: Queryable,
  accountId: string,
  actor: Actor,
  row: SuggestionRow,
  text: string,
  loc: string,
): Promise<string> {
  if (row.status === 'replied')
    throw conflict('already_replied', 'This post was answered already; it has one reply.', {
      external_id: row.reply_external_id,
      url: row.reply_url,
    });
  if (row.status === 'dismissed')
    throw conflict('suggestion_dismissed', 'This suggestion was dismissed.');
  // As sent (and kept): a Mastodon reply names the author first.
  const sent = row.platform === 'mastodon' ? mastodonReplyText(text, row.author_handle) : text;
  checkReplyLength(row, sent, loc);
  const { job, created } = await startJob(
    tx,
    { accountId, kind: 'reply', subject: `reply:${row.id}` },
    (db, id) =>
      enqueueReplySend(db, { job_id: id, account_id: accountId, suggestion_id: row.id, actor }),
  );
  // Under way already with another text: that one is going out, not this.
  if (!created && row.reply_text !== sent)
    throw conflict(
      'reply_in_progress',
      'A reply to this post is being sent already, with another text; follow its job_id.',
      { job_id: job.job_id },
    );
  if (created) {
    await requestReply(tx, row.id, sent, job.job_id);
    await closeReplyProposals(tx, row.id);
    await recordAction(tx, {
      accountId,
      postId: row.post_id,
      action: 'reply_requested',
      actor,
      detail: { suggestion_id: row.id, job_id: job.job_id, platform: row.platform },
    });
  }
  return job.job_id;
}

/** What a job that makes one thing on a platform answers: its state and what it made. */
export function outcomeOf(done: Job) {
  const result = (done.result ?? {}) as { external_id?: string; url?: string | null };
  return {
    job_id: done.job_id,
    state:
      done.status === 'succeeded'
        ? ('sent' as const)
        : done.status === 'failed'
          ? ('failed' as const)
          : ('sending' as const),
    external_id: result.external_id ?? null,
    url: result.url ?? null,
    error: done.error,
  };
}
