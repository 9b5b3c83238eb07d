// Running an approved inbox action (the `engagement_action` job, publish pool): a like, a
// repost or a follow through the item's connected account, under the action's own key, so a
// retried job makes nothing new; its audit entry is written before the job is finished.
import { recordAction } from '../audit/service.ts';
import type { ReadingDeps } from '../connections/service.ts';
import { JobFailure } from '../jobs/service.ts';
import type { EngagementActionPayload } from '../jobs/tasks.ts';
import { suggestionToSend } from './db.ts';
import { findAction } from './inboxDb.ts';
import { writeKey } from './send.ts';
import { writeThrough } from './throughAccount.ts';

export async function performEngagementAction(
  deps: ReadingDeps,
  job: EngagementActionPayload,
): Promise<Record<string, unknown>> {
  const action = await findAction(deps.pool, job.account_id, job.action_id);
  if (action?.status !== 'approved' || action.action === 'reply')
    throw new JobFailure('The action is gone or was not approved.');
  const item = await suggestionToSend(deps.pool, action.item_id);
  if (!item) throw new JobFailure('The post is gone.');
  const kind = action.action;
  const done = await writeThrough(
    deps,
    item,
    'act',
    `Making a ${kind}`,
    async (connector, access) => ({
      made: await connector.act(access, {
        action: kind,
        to: { id: item.external_id, authorId: item.author_id, replyRef: item.reply_ref },
        idempotencyKey: writeKey('action', action.id, item.external_id),
        requestedAt: action.decided_at ?? action.created_at,
      }),
    }),
  );
  const result = { action_id: action.id, action: kind, external_id: done.made.externalId };
  await recordAction(deps.pool, {
    accountId: job.account_id,
    postId: item.post_id,
    action: 'engagement_done',
    actor: job.actor,
    detail: { ...result, job_id: job.job_id, platform: item.platform },
  });
  return result;
}
