// A test's view of Graphile Worker's queue, through its public API only (the `jobs` view,
// `reschedule_jobs`): what a job is scheduled for, and making a job due now. A test that
// schedules a post a few hundred ms ahead races its own request on a loaded machine (a
// schedule already past is refused), so tests schedule ahead and make the job due instead.
import type { Queryable } from '../../core/db/pool.ts';
import { PUBLISH_MAX_ATTEMPTS, publicationJobKey } from '../../core/jobs/tasks.ts';

/** An hour from now: a schedule no slow request can overtake. */
export const hourAhead = () => new Date(Date.now() + 3_600_000).toISOString();

export type PendingJob = {
  id: string;
  run_at: Date;
  updated_at: Date;
  attempts: number;
  max_attempts: number;
  revision: number;
  /**
   * `run_at` less `updated_at`: both are the `now()` of the transaction that added (or
   * replaced) the job, so this is exactly the delay it was scheduled with.
   */
  delay_ms: number;
};

/** The job under `key` (at most one holds a key), or undefined. */
export async function jobByKey(db: Queryable, key: string): Promise<PendingJob | undefined> {
  const { rows } = await db.query<PendingJob>(
    `select id, run_at, updated_at, attempts, max_attempts, revision,
            (extract(epoch from run_at - updated_at) * 1000)::float8 as delay_ms
     from graphile_worker.jobs where key = $1`,
    [key],
  );
  return rows[0];
}

/** A post's publication job, or undefined. */
export const publicationJob = (db: Queryable, postId: string) =>
  jobByKey(db, publicationJobKey(postId));

/**
 * The job a platform's Retry-After or rate limit scheduled for a post's next attempt (not yet
 * run, with fewer attempts than a first job: the ones made are handed on; or a wait for a
 * rate limit's reset, which spends none), or undefined.
 */
export async function retryJobOf(db: Queryable, postId: string) {
  const job = await publicationJob(db, postId);
  if (job?.attempts !== 0) return undefined;
  if (job.max_attempts < PUBLISH_MAX_ATTEMPTS) return job;
  // The payload is not in the public `jobs` view.
  const { rows } = await db.query<{ waits: number | null }>(
    `select (payload->>'rate_limit_waits')::int as waits
     from graphile_worker._private_jobs where id = $1`,
    [job.id],
  );
  return (rows[0]?.waits ?? 0) > 0 ? job : undefined;
}

/** Makes the job under `key` due now; throws if there is none waiting to run. */
export async function runJobNow(db: Queryable, key: string): Promise<void> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from graphile_worker.reschedule_jobs(
       array(select id from graphile_worker.jobs where key = $1 and locked_at is null),
       run_at := now())`,
    [key],
  );
  if (rows[0]!.n !== 1) throw new Error(`no job ${key} waiting to run`);
}

/** Makes a scheduled post's publication job due now. */
export const publishNow = (db: Queryable, postId: string) =>
  runJobNow(db, publicationJobKey(postId));
