// SQL for the job record (sql/015_jobs.sql). Its trigger notifies `job_changed` on every
// change, so nothing here sends notifications itself.
import type { Queryable } from '../db/pool.ts';
import type { JobKind, JobStatus } from './schema.ts';

export type JobRow = {
  id: string;
  account_id: string;
  kind: JobKind;
  subject: string;
  status: JobStatus;
  progress: number;
  stage: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
  /** Credits taken when the job was queued, given back if it fails. */
  credits: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
};

/**
 * A new queued job, or the account's job for the same subject that has not failed (then
 * `created` is false and nothing is added).
 */
export async function insertJob(
  db: Queryable,
  j: { accountId: string; kind: JobKind; subject: string; credits?: number },
): Promise<{ row: JobRow; created: boolean }> {
  // The job it conflicted with may fail before it is read: then the insert goes through.
  for (;;) {
    const inserted = await db.query<JobRow>(
      `insert into jobs (account_id, kind, subject, credits) values ($1, $2, $3, $4)
       on conflict (account_id, kind, subject) where status <> 'failed' do nothing
       returning *`,
      [j.accountId, j.kind, j.subject, j.credits ?? 0],
    );
    if (inserted.rows[0]) return { row: inserted.rows[0], created: true };
    const { rows } = await db.query<JobRow>(
      `select * from jobs
       where account_id = $1 and kind = $2 and subject = $3 and status <> 'failed'`,
      [j.accountId, j.kind, j.subject],
    );
    if (rows[0]) return { row: rows[0], created: false };
  }
}

/** The account's jobs of these ids (those of another account are left out). */
export async function findJobs(
  db: Queryable,
  accountId: string,
  jobIds: string[],
): Promise<JobRow[]> {
  if (!jobIds.length) return [];
  const { rows } = await db.query<JobRow>(
    'select * from jobs where id = any($1::bigint[]) and account_id = $2',
    [jobIds, accountId],
  );
  return rows;
}

/** The account's job; another account's is not found. */
export async function findJob(
  db: Queryable,
  accountId: string,
  jobId: string,
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>('select * from jobs where id = $1 and account_id = $2', [
    jobId,
    accountId,
  ]);
  return rows[0];
}

/** Any account's job (for an address that carries its own signature). */
export async function jobById(db: Queryable, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>('select * from jobs where id = $1', [jobId]);
  return rows[0];
}

/** An attempt begins: running, with the attempt's number. Undefined once finished. */
export async function markRunning(
  db: Queryable,
  jobId: string,
  attempt: number,
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `update jobs set status = 'running', attempts = $2, progress = 0, stage = null,
       started_at = coalesce(started_at, now()), updated_at = now()
     where id = $1 and status in ('queued', 'running') returning *`,
    [jobId, attempt],
  );
  return rows[0];
}

/** Progress only goes forward: a late write of an earlier step changes nothing. */
export async function recordProgress(
  db: Queryable,
  jobId: string,
  progress: number,
  stage: string,
): Promise<void> {
  await db.query(
    `update jobs set progress = $2, stage = $3, updated_at = now()
     where id = $1 and status = 'running' and progress <= $2`,
    [jobId, Math.min(1, Math.max(0, progress)), stage],
  );
}

/**
 * Finishes an unfinished job; false when it had already finished (nothing changes). With
 * `attempt`, only while that attempt is the job's latest and it is running: an attempt that
 * another one overtook (its worker was thought dead) or that the reconciler failed finishes
 * nothing.
 */
export async function finishJob(
  db: Queryable,
  jobId: string,
  outcome: { result: Record<string, unknown> } | { error: string },
  attempt?: number,
): Promise<boolean> {
  return (await finishedJob(db, jobId, outcome, attempt)) !== undefined;
}

/** finishJob, answering the job as it finished (undefined when it had finished already). */
export async function finishedJob(
  db: Queryable,
  jobId: string,
  outcome: { result: Record<string, unknown> } | { error: string },
  attempt?: number,
): Promise<JobRow | undefined> {
  const succeeded = 'result' in outcome;
  const { rows } = await db.query<JobRow>(
    `update jobs set status = $2, result = $3, error = $4, finished_at = now(), updated_at = now(),
       progress = case when $2 = 'succeeded' then 1 else progress end
     where id = $1 and status in ('queued', 'running')
       and ($5::int is null or (status = 'running' and attempts = $5))
     returning *`,
    [
      jobId,
      succeeded ? 'succeeded' : 'failed',
      succeeded ? JSON.stringify(outcome.result) : null,
      succeeded ? null : outcome.error.slice(0, 2000),
      attempt ?? null,
    ],
  );
  return rows[0];
}

/**
 * Unfinished jobs that no Graphile Worker job will ever run again: their job is gone, or is
 * out of attempts and not running (read through Graphile Worker's public `jobs` view).
 * `keyPrefix` gives each kind's worker job key without the job id.
 */
export async function abandonedJobs(
  db: Queryable,
  keyPrefix: Record<JobKind, string>,
): Promise<{ id: string; attempts: number; last_error: string | null }[]> {
  const kinds = Object.keys(keyPrefix);
  const { rows } = await db.query<{ id: string; attempts: number; last_error: string | null }>(
    `select j.id, j.attempts, g.last_error
     from jobs j
     join unnest($1::text[], $2::text[]) as k(kind, prefix) on k.kind = j.kind
     left join graphile_worker.jobs g on g.key = k.prefix || j.id
     where j.status in ('queued', 'running')
       and (g.id is null or (g.attempts >= g.max_attempts and g.locked_at is null))
     limit 500`,
    [kinds, kinds.map((k) => keyPrefix[k as JobKind])],
  );
  return rows;
}

/** Serialises job starts of one account and kind until the transaction ends. */
export async function lockAccountJobs(db: Queryable, accountId: string, kind: JobKind) {
  await db.query('select pg_advisory_xact_lock(hashtext($1))', [`jobs:${accountId}:${kind}`]);
}

/** How many of the account's jobs of `kind` are queued or running. */
export async function unfinishedJobs(
  db: Queryable,
  accountId: string,
  kind: JobKind,
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from jobs
     where account_id = $1 and kind = $2 and status in ('queued', 'running')`,
    [accountId, kind],
  );
  return rows[0]!.n;
}

/** Deletes the account's finished jobs of `kind` but the `keep` that finished last. */
export async function trimFinishedJobs(
  db: Queryable,
  accountId: string,
  kind: JobKind,
  keep: number,
): Promise<void> {
  await db.query(
    `delete from jobs where id in (
       select id from jobs
       where account_id = $1 and kind = $2 and status in ('succeeded', 'failed')
       order by finished_at desc offset $3)`,
    [accountId, kind, keep],
  );
}

/**
 * Finished jobs of `kind` past keeping, oldest first: finished over `hours` ago, or (with
 * `accountId`) the account's beyond its `keep` newest. For kinds whose files go with the job.
 */
export async function finishedJobsPast(
  db: Queryable,
  kind: JobKind,
  past: { hours: number } | { accountId: string; keep: number },
): Promise<{ id: string; account_id: string; result: Record<string, unknown> | null }[]> {
  const { rows } =
    'hours' in past
      ? await db.query(
          `select id::text, account_id::text, result from jobs
           where kind = $1 and finished_at < now() - make_interval(hours => $2)
           order by finished_at`,
          [kind, past.hours],
        )
      : await db.query(
          `select id::text, account_id::text, result from jobs
           where account_id = $1 and kind = $2 and status in ('succeeded', 'failed')
           order by finished_at desc offset $3`,
          [past.accountId, kind, past.keep],
        );
  return rows;
}

export async function deleteJobs(db: Queryable, jobIds: string[]): Promise<void> {
  await db.query('delete from jobs where id = any($1::bigint[])', [jobIds]);
}

export async function deleteJob(db: Queryable, jobId: string): Promise<void> {
  await db.query('delete from jobs where id = $1', [jobId]);
}

/** Rows of the account's newest jobs. */
export async function recentJobs(db: Queryable, accountId: string, limit: number) {
  const { rows } = await db.query<JobRow>(
    'select * from jobs where account_id = $1 order by created_at desc, id desc limit $2',
    [accountId, limit],
  );
  return rows;
}
