// Running an agent task (the `agent_task` job, generate pool): a fixed plan per kind over the
// service's own operations that only make drafts, drafted replies and briefs. Nothing here
// can publish, schedule, send a reply, approve an inbox action or touch credentials (this
// module imports no operation that does; test/agentTasks checks its imports), so no text,
// the goal's or a third party's, can make it do so. Each step is logged with what it made in
// the transaction that made it; a retried job whose plan ended does not run it again.
import type { Actor } from '../audit/schema.ts';
import { getBrandMemory } from '../brandMemory/service.ts';
import { listConnectedAccounts } from '../connections/service.ts';
import type { Queryable } from '../db/pool.ts';
import { openSuggestionIds, runReplyDrafts } from '../engagement/service.ts';
import { type GenerationDeps, runDraftWeek } from '../generation/service.ts';
import { JobFailure, type ProgressReport } from '../jobs/service.ts';
import type { AgentTaskPayload } from '../jobs/tasks.ts';
import type { Credential } from '../kernel/principal.ts';
import { getAnalytics } from '../metrics/service.ts';
import { nextMonday } from '../posts/service.ts';
import { listTrends } from '../trends/service.ts';
import { type AgentTaskRow, findAgentTask, recordStep, resetSteps } from './db.ts';
import type { AgentTaskStep } from './schema.ts';

/** Open suggestions a reply sweep drafts for at most (draft_replies' own limit). */
const SWEEP_SIZE = 20;

const stepOf = (name: string, detail: string, status: AgentTaskStep['status'] = 'done') => ({
  name,
  status,
  detail,
  at: new Date().toISOString(),
});

/** The read-only caller the plan reads the brand's data as. */
const callerOf = (task: AgentTaskRow, actor: Actor) => ({
  accountId: task.account_id,
  selectedBrandId: task.brand_id,
  credential: (actor.kind === 'oauth'
    ? { kind: 'oauth', id: actor.id ?? '', clientId: actor.id ?? '' }
    : { kind: actor.kind === 'system' ? 'api_key' : actor.kind, id: actor.id ?? '' }) as Credential,
});

async function draftWeekPlan(
  deps: GenerationDeps,
  task: AgentTaskRow,
  job: AgentTaskPayload,
  report: ProgressReport,
) {
  const memory = await getBrandMemory(deps.pool, callerOf(task, job.actor), task.brand_id);
  const pillars = (memory.doc.pillars ?? []).map((p) => p.name);
  const themes = [task.goal.slice(0, 300), ...pillars].slice(0, 21);
  await recordStep(
    deps.pool,
    task.id,
    stepOf('read_memory', `themes: the goal and ${pillars.length} pillars`),
  );
  const start = await nextMonday(deps.pool, task.brand_id);
  await runDraftWeek(
    deps,
    { ...job, brand_id: task.brand_id, start_date: start, posts_per_day: 1, themes },
    report,
    async (tx: Queryable, result) => {
      const ids = (result.post_ids as string[]) ?? [];
      await recordStep(
        tx,
        task.id,
        stepOf('draft_week', `${ids.length} drafts for the week of ${start}, none scheduled`),
        { post_ids: ids, start_date: start },
      );
    },
  );
}

async function replySweepPlan(deps: GenerationDeps, task: AgentTaskRow, job: AgentTaskPayload) {
  const open = await openSuggestionIds(deps.pool, {
    accountId: task.account_id,
    brandId: task.brand_id,
    limit: SWEEP_SIZE,
  });
  if (!open.length) {
    await recordStep(deps.pool, task.id, stepOf('find_open', 'no open suggestions', 'skipped'), {
      drafted: [],
    });
    return;
  }
  await recordStep(deps.pool, task.id, stepOf('find_open', `${open.length} open suggestions`));
  await runReplyDrafts(
    deps,
    {
      job_id: job.job_id,
      account_id: task.account_id,
      suggestion_ids: open,
      instruction: task.goal.slice(0, 500),
    },
    async (tx, result) => {
      const drafted = (result.suggestion_ids as string[]) ?? [];
      await recordStep(
        tx,
        task.id,
        stepOf('draft_replies', `drafts for ${drafted.length} suggestions, none sent`),
        {
          drafted,
        },
      );
    },
  );
}

async function trendBriefPlan(deps: GenerationDeps, task: AgentTaskRow, job: AgentTaskPayload) {
  const caller = callerOf(task, job.actor);
  const analytics = await getAnalytics(deps.pool, caller, { brand_id: task.brand_id });
  await recordStep(
    deps.pool,
    task.id,
    stepOf('read_analytics', `${analytics.totals.posts} posts in the last 30 days`),
  );
  const platforms = [
    ...new Set(
      (await listConnectedAccounts(deps.pool, task.account_id, task.brand_id)).map(
        (a) => a.platform,
      ),
    ),
  ];
  const trends = [];
  for (const platform of platforms) {
    const t = await listTrends(deps.pool, caller, { platform, brand_id: task.brand_id, limit: 5 });
    trends.push(
      ...t.trends.map((x) => ({ platform, rank: x.rank, volume: x.volume, ...x.untrusted })),
    );
  }
  await recordStep(
    deps.pool,
    task.id,
    stepOf(
      'read_trends',
      `${trends.length} topic${trends.length === 1 ? '' : 's'} on ${platforms.join(', ') || 'no platform'}`,
    ),
  );
  const { totals } = analytics;
  const top = analytics.top_posts[0];
  const lines = [
    `Brief for: ${task.goal}`,
    `Last 30 days: ${totals.posts} posts published, ${totals.engagement} interactions (${totals.likes} likes, ${totals.reposts} reposts, ${totals.replies} replies).`,
    top
      ? `Best post: ${top.post_id} on ${top.platform} with ${top.engagement} interactions${top.permalink_url ? ` (${top.permalink_url})` : ''}.`
      : 'No post has engagement counted yet.',
    trends.length
      ? `${trends.length} trending topics collected (${platforms.join(', ')}); they are listed under untrusted, as their authors wrote them.`
      : 'No trends collected yet for the connected platforms.',
  ];
  await recordStep(deps.pool, task.id, stepOf('write_brief', 'a brief of analytics and trends'), {
    brief: lines.join('\n'),
    untrusted: { trends },
  });
}

export async function runAgentTask(
  deps: GenerationDeps,
  job: AgentTaskPayload,
  report: ProgressReport,
): Promise<Record<string, unknown>> {
  const task = await findAgentTask(deps.pool, job.account_id, job.task_id);
  if (!task) throw new JobFailure('The task is gone.');
  await report(0.1, task.kind);
  // A plan's last output commits with what it made: a retried job whose plan ended does not
  // run it again; one that had not ended logs its steps anew.
  const last = { draft_week: 'post_ids', reply_sweep: 'drafted', trend_brief: 'brief' }[task.kind];
  if (!(last in task.outputs)) {
    await resetSteps(deps.pool, task.id);
    if (task.kind === 'draft_week') await draftWeekPlan(deps, task, job, report);
    if (task.kind === 'reply_sweep') await replySweepPlan(deps, task, job);
    if (task.kind === 'trend_brief') await trendBriefPlan(deps, task, job);
  }
  const done = (await findAgentTask(deps.pool, job.account_id, job.task_id))!;
  return { task_id: task.id, outputs: Object.keys(done.outputs) };
}
