// Reply suggestions as the API answers them (MCP list_reply_suggestions, draft_replies,
// post_reply, dismiss_reply_suggestion). A third party's words are answered only under
// `untrusted`, and nothing they say reaches a decision: a reply is sent only by post_reply,
// called with `engage`, with the text its caller gives or a draft its caller picks.
import { randomUUID } from 'node:crypto';
import { actorOf } from '../audit/schema.ts';
import { requireBrandFor } from '../brands/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { Job } from '../jobs/schema.ts';
import { jobsOf, startJob, waitForJob } from '../jobs/service.ts';
import { enqueueReplyDrafts } from '../jobs/tasks.ts';
import { conflict, DomainError, invalid, notFound } from '../kernel/errors.ts';
import {
  dismissSuggestion,
  findSuggestions,
  listSuggestionRows,
  type SuggestionRow,
} from './db.ts';
import { closeReplyProposals } from './inboxDb.ts';
import { outcomeOf, REPLY_WAIT_S, startReply } from './reply.ts';
import type {
  DismissReplySuggestionInput,
  DraftedReplies,
  DraftRepliesInput,
  EngagementCaller,
  EngagementDeps,
  ListReplySuggestionsInput,
  PostedReply,
  PostReplyInput,
  ReplySuggestion,
  ReplySuggestions,
} from './schema.ts';

const replyState = (job: Job | undefined, row: SuggestionRow) =>
  row.status === 'replied' ? 'sent' : job?.status === 'failed' ? 'failed' : ('sending' as const);

function toSuggestion(row: SuggestionRow, job: Job | undefined): ReplySuggestion {
  return {
    id: row.id,
    brand_id: row.brand_id,
    platform: row.platform,
    kind: row.kind as 'mention' | 'reply',
    status: row.status,
    posted_at: row.posted_at.toISOString(),
    received_at: row.received_at.toISOString(),
    untrusted: { author_handle: row.author_handle, text: row.text, url: row.url },
    our_post: row.post_id ? { id: row.post_id, body: row.post_body ?? '' } : null,
    drafts: row.drafts.map((d) => ({ index: d.n, text: d.text, created_at: d.created_at })),
    reply: row.reply_text
      ? {
          text: row.reply_text,
          state: replyState(job, row),
          job_id: row.reply_job_id,
          external_id: row.reply_external_id,
          url: row.reply_url,
          error: row.status === 'replied' ? null : (job?.error ?? null),
        }
      : null,
  };
}

/** Rows with the state of their reply jobs. */
async function withJobs(pool: Pool, accountId: string, rows: SuggestionRow[]) {
  const ids = rows.flatMap((r) => (r.reply_job_id ? [r.reply_job_id] : []));
  const jobs = new Map((await jobsOf(pool, accountId, ids)).map((j) => [j.job_id, j]));
  return rows.map((r) => toSuggestion(r, r.reply_job_id ? jobs.get(r.reply_job_id) : undefined));
}

/** list_reply_suggestions: a page of the brand's suggestions, newest first. */
export async function listReplySuggestions(
  pool: Pool,
  caller: EngagementCaller,
  input: ListReplySuggestionsInput,
): Promise<ReplySuggestions> {
  const brand = await requireBrandFor(pool, caller, input.brand_id);
  const rows = await listSuggestionRows(pool, {
    accountId: caller.accountId,
    brandId: brand.id,
    statuses: input.status ? [input.status] : ['open', 'drafted'],
    platform: input.platform,
    before: input.cursor,
    limit: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  return {
    suggestions: await withJobs(pool, caller.accountId, page),
    next_cursor: rows.length > input.limit ? page.at(-1)!.id : null,
  };
}

/** The caller's suggestions of these ids, each waiting for an answer, or why not. */
async function waitingSuggestions(pool: Pool, accountId: string, ids: string[]) {
  const rows = await findSuggestions(pool, accountId, ids);
  for (const id of ids) {
    const row = rows.find((r) => r.id === id);
    // A keyword post is the inbox's, not a suggestion.
    if (!row || row.kind === 'keyword') throw notFound(`Reply suggestion ${id}`);
    if (row.status === 'replied' || row.status === 'dismissed')
      throw conflict(
        `suggestion_${row.status}`,
        `Reply suggestion ${id} is ${row.status} already; only open and drafted ones can be drafted for, answered or dismissed.`,
      );
  }
  return rows;
}

/** dismiss_reply_suggestion: an open or drafted suggestion is set aside. */
export async function dismissReplySuggestion(
  pool: Pool,
  caller: EngagementCaller,
  input: DismissReplySuggestionInput,
): Promise<ReplySuggestion> {
  const [waiting] = await waitingSuggestions(pool, caller.accountId, [input.suggestion_id]);
  const [job] = waiting!.reply_job_id
    ? await jobsOf(pool, caller.accountId, [waiting!.reply_job_id])
    : [];
  if (job && (job.status === 'queued' || job.status === 'running'))
    throw conflict(
      'reply_in_progress',
      'A reply to this suggestion is being sent; it cannot be dismissed now.',
      { job_id: job.job_id },
    );
  const dismissed = await withTransaction(pool, async (tx) => {
    if (!(await dismissSuggestion(tx, caller.accountId, input.suggestion_id))) return false;
    await closeReplyProposals(tx, input.suggestion_id);
    return true;
  });
  if (!dismissed)
    throw conflict('suggestion_closed', 'The suggestion was answered or dismissed meanwhile.');
  const [row] = await findSuggestions(pool, caller.accountId, [input.suggestion_id]);
  return (await withJobs(pool, caller.accountId, [row!]))[0]!;
}

/**
 * draft_replies: drafts for up to 20 suggestions, written by the generate pool (the model
 * server when configured, else the built-in templates) and stored on them; nothing is sent.
 */
export async function draftReplies(
  deps: EngagementDeps & { timeoutMs: number },
  caller: EngagementCaller,
  input: DraftRepliesInput,
): Promise<DraftedReplies> {
  const ids = [...new Set(input.suggestion_ids)];
  await waitingSuggestions(deps.pool, caller.accountId, ids);
  const { job } = await withTransaction(deps.pool, (tx) =>
    startJob(
      tx,
      { accountId: caller.accountId, kind: 'reply_drafts', subject: `drafts:${randomUUID()}` },
      (db, jobId) =>
        enqueueReplyDrafts(db, {
          job_id: jobId,
          account_id: caller.accountId,
          suggestion_ids: ids,
          instruction: input.instruction,
        }),
    ),
  );
  const done = await waitForJob(deps, caller, job.job_id, deps.timeoutMs / 1000);
  if (done.status === 'failed')
    throw new DomainError('generation_failed', done.error ?? 'Drafting failed.', {
      job_id: done.job_id,
    });
  if (done.status !== 'succeeded')
    throw new DomainError(
      'generation_timeout',
      `The drafts were not ready within ${deps.timeoutMs / 1000} s; the job goes on: follow it with job_status, then list_reply_suggestions.`,
      { job_id: done.job_id },
    );
  const rows = await findSuggestions(deps.pool, caller.accountId, ids);
  return {
    job_id: done.job_id,
    suggestions: (await withJobs(deps.pool, caller.accountId, rows)).map((s) => ({
      id: s.id,
      status: s.status,
      drafts: s.drafts,
    })),
  };
}

/**
 * post_reply: sends one reply to a suggestion, as a job of the publish pool, exactly once
 * (startReply). Waits up to REPLY_WAIT_S for it to go out.
 */
export async function postReply(
  deps: EngagementDeps,
  caller: EngagementCaller,
  input: PostReplyInput,
): Promise<PostedReply> {
  const jobId = await withTransaction(deps.pool, async (tx) => {
    const [row] = await findSuggestions(tx, caller.accountId, [input.suggestion_id], {
      lock: true,
    });
    if (!row || row.kind === 'keyword') throw notFound(`Reply suggestion ${input.suggestion_id}`);
    let text = input.text;
    if (text === undefined) {
      text = row.drafts.find((d) => d.n === input.draft_index)?.text;
      if (text === undefined && row.status !== 'replied' && row.status !== 'dismissed')
        throw invalid(
          ['body', 'draft_index'],
          row.drafts.length
            ? `no draft ${input.draft_index}: the suggestion has drafts ${row.drafts.map((d) => d.n).join(', ')}`
            : 'the suggestion has no drafts (draft_replies writes them)',
        );
    }
    const loc = input.text === undefined ? 'draft_index' : 'text';
    return startReply(tx, caller.accountId, actorOf(caller.credential), row, text ?? '', loc);
  });
  const done = await waitForJob(deps, caller, jobId, REPLY_WAIT_S);
  return { suggestion_id: input.suggestion_id, ...outcomeOf(done) };
}

export { performEngagementAction } from './act.ts';
export { collectAccountInbound, startInboundCollections } from './collect.ts';
export { openSuggestionIds, runReplyDrafts } from './drafts.ts';
export { approveEngagementAction, dismissEngagementAction, listEngagementInbox } from './inbox.ts';
export { pruneEngagement } from './prune.ts';
export { sendReply } from './send.ts';
