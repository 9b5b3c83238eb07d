// SQL for agent tasks (sql/032_inbound.sql): a task, its logged steps and its outputs.
import type { Queryable } from '../db/pool.ts';
import type { AgentTaskKind, AgentTaskStep } from './schema.ts';

export type AgentTaskRow = {
  id: string;
  account_id: string;
  brand_id: string;
  kind: AgentTaskKind;
  goal: string;
  job_id: string | null;
  steps: AgentTaskStep[];
  outputs: Record<string, unknown>;
  created_at: Date;
};

const COLUMNS = `id::text, account_id::text, brand_id::text, kind, goal, job_id::text, steps,
  outputs, created_at`;

export async function insertAgentTask(
  db: Queryable,
  t: { accountId: string; brandId: string; kind: AgentTaskKind; goal: string },
): Promise<AgentTaskRow> {
  const { rows } = await db.query<AgentTaskRow>(
    `insert into agent_tasks (account_id, brand_id, kind, goal) values ($1, $2, $3, $4)
     returning ${COLUMNS}`,
    [t.accountId, t.brandId, t.kind, t.goal],
  );
  return rows[0]!;
}

export async function setAgentTaskJob(db: Queryable, id: string, jobId: string) {
  await db.query('update agent_tasks set job_id = $2 where id = $1', [id, jobId]);
}

/** The account's task (another account's is not found). */
export async function findAgentTask(db: Queryable, accountId: string, id: string) {
  const { rows } = await db.query<AgentTaskRow>(
    `select ${COLUMNS} from agent_tasks where id = $1 and account_id = $2`,
    [id, accountId],
  );
  return rows[0];
}

export async function listAgentTaskRows(
  db: Queryable,
  q: { accountId: string; brandId?: string; before?: string; limit: number },
) {
  const { rows } = await db.query<AgentTaskRow>(
    `select ${COLUMNS} from agent_tasks
     where account_id = $1 and ($2::bigint is null or brand_id = $2)
       and ($3::bigint is null or id < $3)
     order by id desc limit $4`,
    [q.accountId, q.brandId ?? null, q.before ?? null, q.limit],
  );
  return rows;
}

/** Deletes tasks created more than `days` ago; answers how many. */
export async function deleteOldTasks(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    'delete from agent_tasks where created_at < now() - make_interval(days => $1)',
    [days],
  );
  return rowCount ?? 0;
}

/** Logs a step that ended, and merges what it made into the outputs. */
export async function recordStep(
  db: Queryable,
  id: string,
  step: AgentTaskStep,
  outputs: Record<string, unknown> = {},
) {
  await db.query(
    `update agent_tasks set steps = steps || $2::jsonb, outputs = outputs || $3::jsonb
     where id = $1`,
    [id, JSON.stringify([step]), JSON.stringify(outputs)],
  );
}

/** A plan run again (a retried job whose plan did not end) logs its steps anew. */
export async function resetSteps(db: Queryable, id: string) {
  await db.query(`update agent_tasks set steps = '[]' where id = $1`, [id]);
}
