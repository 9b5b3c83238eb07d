// The engagement inbox as the API answers it (MCP list_engagement_inbox,
// approve_engagement_action, dismiss_engagement_action; feature `engagement_inbox`, checked by
// the interface). Rules only propose; an action runs when a caller with `engage` approves it,
// as one job, exactly once: a reply through the post's one reply (startReply), a like, repost
// or follow through the `engagement_action` job under the action's own key.
import { actorOf } from '../audit/schema.ts';
import { recordAction } from '../audit/service.ts';
import { requireBrandFor } from '../brands/service.ts';
import { withTransaction } from '../db/pool.ts';
import type { Job } from '../jobs/schema.ts';
import { jobsOf, startJob, waitForJob } from '../jobs/service.ts';
import { enqueueEngagementAction } from '../jobs/tasks.ts';
import { conflict, invalid, notFound } from '../kernel/errors.ts';
import { findSuggestions } from './db.ts';
import { type ActionRow, decideAction, findAction, listActionRows } from './inboxDb.ts';
import { outcomeOf, REPLY_WAIT_S, startReply } from './reply.ts';
import type {
  ApproveActionInput,
  DismissActionInput,
  EngagementCaller,
  EngagementDeps,
  Inbox,
  InboxAction,
  ListInboxInput,
} from './schema.ts';

type Item = {
  id: string;
  platform: string;
  kind: string;
  posted_at: Date;
  author_handle: string;
  text: string;
  url: string | null;
};

function toAction(row: ActionRow, item: Item, job: Job | undefined): InboxAction {
  const outcome = job && outcomeOf(job);
  return {
    id: row.id,
    action: row.action,
    status: row.status,
    draft: row.draft,
    created_at: row.created_at.toISOString(),
    decided_at: row.decided_at?.toISOString() ?? null,
    post: {
      id: item.id,
      platform: item.platform as InboxAction['post']['platform'],
      kind: item.kind as InboxAction['post']['kind'],
      posted_at: item.posted_at.toISOString(),
      untrusted: { author_handle: item.author_handle, text: item.text, url: item.url },
    },
    outcome: outcome
      ? {
          state: outcome.state,
          job_id: outcome.job_id,
          external_id: outcome.external_id,
          error: outcome.error,
        }
      : null,
  };
}

/** list_engagement_inbox: a page of the brand's actions of one status, newest first. */
export async function listEngagementInbox(
  deps: EngagementDeps,
  caller: EngagementCaller,
  input: ListInboxInput,
): Promise<Inbox> {
  const brand = await requireBrandFor(deps.pool, caller, input.brand_id);
  const rows = await listActionRows(deps.pool, {
    accountId: caller.accountId,
    brandId: brand.id,
    status: input.status,
    before: input.cursor,
    limit: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const ids = page.flatMap((r) => (r.job_id ? [r.job_id] : []));
  const jobs = new Map((await jobsOf(deps.pool, caller.accountId, ids)).map((j) => [j.job_id, j]));
  return {
    actions: page.map((r) => toAction(r, r.item, r.job_id ? jobs.get(r.job_id) : undefined)),
    next_cursor: rows.length > input.limit ? page.at(-1)!.id : null,
  };
}

/**
 * The caller's action, locked, with its post, when it can be decided: proposed, or approved
 * and its job failed (approved again, it runs again under the same key: still once).
 */
async function proposedAction(tx: Parameters<typeof findAction>[0], accountId: string, id: string) {
  const action = await findAction(tx, accountId, id, { lock: true });
  if (!action) throw notFound(`Inbox action ${id}`);
  const [job] = action.job_id ? await jobsOf(tx, accountId, [action.job_id]) : [];
  const failed = action.status === 'approved' && job?.status === 'failed';
  if (action.status !== 'proposed' && !failed)
    throw conflict('action_decided', `This action was ${action.status} already.`);
  const [item] = await findSuggestions(tx, accountId, [action.item_id], { lock: true });
  if (!item) throw notFound('Inbox action');
  return { action, item };
}

/**
 * approve_engagement_action: runs the action once, as a job, and waits up to REPLY_WAIT_S
 * for it. A reply sends `text`, else its draft.
 */
export async function approveEngagementAction(
  deps: EngagementDeps,
  caller: EngagementCaller,
  input: ApproveActionInput,
): Promise<InboxAction> {
  const actor = actorOf(caller.credential);
  const jobId = await withTransaction(deps.pool, async (tx) => {
    const { action, item } = await proposedAction(tx, caller.accountId, input.action_id);
    let jobId: string;
    if (action.action === 'reply') {
      const text = input.text ?? action.draft;
      if (!text) throw invalid(['body', 'text'], 'this reply has no draft: give its text');
      jobId = await startReply(tx, caller.accountId, actor, item, text, 'text');
    } else {
      if (input.text !== undefined)
        throw invalid(['body', 'text'], `a ${action.action} takes no text`);
      ({
        job: { job_id: jobId },
      } = await startJob(
        tx,
        { accountId: caller.accountId, kind: 'engagement_action', subject: `action:${action.id}` },
        (db, id) =>
          enqueueEngagementAction(db, {
            job_id: id,
            account_id: caller.accountId,
            action_id: action.id,
            actor,
          }),
      ));
    }
    await decideAction(tx, action.id, { status: 'approved', jobId, text: input.text });
    await recordAction(tx, {
      accountId: caller.accountId,
      postId: item.post_id,
      action: 'engagement_approved',
      actor,
      detail: { action_id: action.id, action: action.action, item_id: item.id, job_id: jobId },
    });
    return jobId;
  });
  await waitForJob(deps, caller, jobId, REPLY_WAIT_S);
  return (await listOne(deps, caller, input.action_id))!;
}

/** dismiss_engagement_action: a proposed action is set aside. */
export async function dismissEngagementAction(
  deps: EngagementDeps,
  caller: EngagementCaller,
  input: DismissActionInput,
): Promise<InboxAction> {
  await withTransaction(deps.pool, async (tx) => {
    const { action } = await proposedAction(tx, caller.accountId, input.action_id);
    await decideAction(tx, action.id, { status: 'dismissed' });
  });
  return (await listOne(deps, caller, input.action_id))!;
}

/** One action as the inbox lists it. */
async function listOne(deps: EngagementDeps, caller: EngagementCaller, id: string) {
  const action = await findAction(deps.pool, caller.accountId, id);
  if (!action) return undefined;
  const [item] = await findSuggestions(deps.pool, caller.accountId, [action.item_id]);
  const [job] = action.job_id ? await jobsOf(deps.pool, caller.accountId, [action.job_id]) : [];
  return toAction(action, item!, job);
}
