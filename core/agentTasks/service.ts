// Agent tasks as the API answers them (MCP create_agent_task, list_agent_tasks,
// get_agent_task; preview feature agent_tasks, checked by the interface): a task and its job
// start in one transaction; its steps, outputs and job are read back.
import { actorOf } from '../audit/schema.ts';
import { requireBrandFor } from '../brands/service.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import type { Job } from '../jobs/schema.ts';
import { jobsOf, startJob } from '../jobs/service.ts';
import { enqueueAgentTask } from '../jobs/tasks.ts';
import { notFound } from '../kernel/errors.ts';
import type { Caller } from '../posts/service.ts';
import {
  type AgentTaskRow,
  deleteOldTasks,
  findAgentTask,
  insertAgentTask,
  listAgentTaskRows,
  setAgentTaskJob,
} from './db.ts';
import type {
  AgentTask,
  CreateAgentTaskInput,
  GetAgentTaskInput,
  ListAgentTasksInput,
} from './schema.ts';

function toTask(row: AgentTaskRow, job: Job | undefined): AgentTask {
  return {
    id: row.id,
    brand_id: row.brand_id,
    kind: row.kind,
    goal: row.goal,
    status: job?.status ?? 'queued',
    steps: row.steps,
    outputs: row.outputs,
    job: job ?? null,
    created_at: row.created_at.toISOString(),
  };
}

async function withJobs(db: Queryable, accountId: string, rows: AgentTaskRow[]) {
  const ids = rows.flatMap((r) => (r.job_id ? [r.job_id] : []));
  const jobs = new Map((await jobsOf(db, accountId, ids)).map((j) => [j.job_id, j]));
  return rows.map((r) => toTask(r, r.job_id ? jobs.get(r.job_id) : undefined));
}

/** create_agent_task: the task and its job, queued in the generate pool. */
export async function createAgentTask(
  pool: Pool,
  caller: Caller,
  input: CreateAgentTaskInput,
): Promise<AgentTask> {
  const brand = await requireBrandFor(pool, caller, input.brand_id);
  const row = await withTransaction(pool, async (tx) => {
    const task = await insertAgentTask(tx, {
      accountId: caller.accountId,
      brandId: brand.id,
      kind: input.kind,
      goal: input.goal,
    });
    const { job } = await startJob(
      tx,
      { accountId: caller.accountId, kind: 'agent_task', subject: `agent:${task.id}` },
      (db, jobId) =>
        enqueueAgentTask(db, {
          job_id: jobId,
          account_id: caller.accountId,
          task_id: task.id,
          actor: actorOf(caller.credential),
        }),
    );
    await setAgentTaskJob(tx, task.id, job.job_id);
    return { ...task, job_id: job.job_id };
  });
  return (await withJobs(pool, caller.accountId, [row]))[0]!;
}

// A task's steps and its job are read in one snapshot: read apart, a job that ended between the
// two reads would show as succeeded beside the steps of before its last one.
export async function getAgentTask(pool: Pool, caller: Caller, input: GetAgentTaskInput) {
  return withTransaction(
    pool,
    async (tx) => {
      const row = await findAgentTask(tx, caller.accountId, input.task_id);
      if (!row) throw notFound('Agent task');
      return (await withJobs(tx, caller.accountId, [row]))[0]!;
    },
    'snapshot',
  );
}

export async function listAgentTasks(pool: Pool, caller: Caller, input: ListAgentTasksInput) {
  const brandId = input.brand_id
    ? (await requireBrandFor(pool, caller, input.brand_id)).id
    : undefined;
  return withTransaction(
    pool,
    async (tx) => {
      const rows = await listAgentTaskRows(tx, {
        accountId: caller.accountId,
        brandId,
        before: input.cursor,
        limit: input.limit + 1,
      });
      const page = rows.slice(0, input.limit);
      return {
        tasks: await withJobs(tx, caller.accountId, page),
        next_cursor: rows.length > input.limit ? page.at(-1)!.id : null,
      };
    },
    'snapshot',
  );
}

/** How long a task is kept, so a flood of tasks does not grow the database for ever. */
export const TASK_KEEP_DAYS = 90;

/** Deletes the tasks created more than `days` ago (the daily prune); answers how many. */
export async function pruneAgentTasks(db: Queryable, days = TASK_KEEP_DAYS): Promise<number> {
  return deleteOldTasks(db, days);
}

export { runAgentTask } from './run.ts';
