// Running an approved inbox action (the `engagement_action` job, publish pool): a like, a
// repost or a follow through the item's connected account, under the action's own key, so a
// retried job makes nothing new; its audit entry and the job's success commit together.
import { recordAudit } from '../audit/db.ts';
import { type ReadingDeps, readThrough } from '../connections/reading.ts';
import { withTransaction } from '../db/pool.ts';
import { type FinishInside, JobFailure } from '../jobs/service.ts';
import type { EngagementActionPayload } from '../jobs/tasks.ts';
import { findAction, itemToActOn } from './db.ts';

export async function performEngagementAction(
  deps: ReadingDeps,
  job: EngagementActionPayload,
  finish: FinishInside,
): Promise<Record<string, unknown>> {
  const action = await findAction(deps.pool, job.account_id, job.action_id);
  if (action?.status !== 'approved' || action.action === 'reply')
    throw new JobFailure('The action is gone or was not approved.');
  const item = await itemToActOn(deps.pool, action.item_id);
  if (!item) throw new JobFailure('The post is gone.');
  if (item.account_status !== 'active')
    throw new JobFailure(
      `The connected ${item.platform} account ${item.handle} needs reconnecting.`,
    );
  const kind = action.action;
  const done = await readThrough(
    deps,
    {
      id: item.connected_account_id,
      platform: item.platform,
      handle: item.handle,
      credentials: item.credentials,
    },
    'act',
    `Running a ${kind}`,
    async (connector, access) => ({
      made: await connector.act(access, {
        action: kind,
        to: { id: item.external_id, authorId: item.author_id, replyRef: item.reply_ref },
        idempotencyKey: `action-${action.id}`,
        requestedAt: action.decided_at ?? action.created_at,
      }),
    }),
  );
  if (done.outcome === 'throttled')
    throw new Error(`the platform asked to wait ${Math.ceil(done.retryAfterMs / 1000)} s`);
  if (done.outcome === 'skipped') throw new JobFailure(`The ${kind} was not made: ${done.reason}`);
  const result = { action_id: action.id, action: kind, external_id: done.made.externalId };
  await withTransaction(deps.pool, async (tx) => {
    await recordAudit(tx, {
      accountId: job.account_id,
      postId: item.post_id,
      action: 'engagement_done',
      actor: job.actor,
      detail: { ...result, job_id: job.job_id, platform: item.platform },
    });
    await finish(tx, result);
  });
  return result;
}
