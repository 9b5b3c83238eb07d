// The job record's operations: starting a job with its Graphile Worker job in one
// transaction, reading it (MCP job_status, waiting for a change on the process's one LISTEN
// connection, answered as clients see it), and running an attempt of it in a worker.

import { addCredits } from '../accounts/service.ts';
import type { Notifications } from '../db/notifications.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { conflict, DomainError, type JobWaitCode, notFound } from '../kernel/errors.ts';
import {
  abandonedJobs,
  deleteJob,
  deleteJobs,
  findJob,
  findJobs,
  finishedJob,
  finishedJobsPast,
  finishJob,
  insertJob,
  type JobRow,
  jobById,
  lockAccountJobs,
  markRunning,
  recentJobs,
  recordProgress,
  trimFinishedJobs,
  unfinishedJobs,
} from './db.ts';
import { JOB_KINDS, type Job, type JobKind, type JobStatusInput, MAX_WAIT_S } from './schema.ts';
import { workJobKey } from './tasks.ts';

/** What sql/015_jobs.sql's trigger notifies, with the job's id, on every change. */
export const JOB_CHANGED_CHANNEL = 'job_changed';

export const toJob = (r: JobRow): Job => ({
  job_id: r.id,
  kind: r.kind,
  status: r.status,
  progress: r.progress,
  stage: r.stage,
  result: r.result,
  error: r.error,
  attempts: r.attempts,
  created_at: r.created_at.toISOString(),
  started_at: r.started_at?.toISOString() ?? null,
  finished_at: r.finished_at?.toISOString() ?? null,
});

/** The account's newest `limit` jobs, newest first. */
/** The account's jobs of these ids (another account's are left out). */
export async function jobsOf(db: Queryable, accountId: string, jobIds: string[]): Promise<Job[]> {
  return (await findJobs(db, accountId, jobIds)).map(toJob);
}

export const listJobs = async (db: Queryable, accountId: string, limit: number): Promise<Job[]> =>
  (await recentJobs(db, accountId, limit)).map(toJob);

const finished = (r: JobRow) => r.status === 'succeeded' || r.status === 'failed';

/**
 * Starts a job on `tx` (the caller's transaction): a new row and its worker job, added by
 * `enqueue` with the row's id, commit together. The same subject asked for again, while its
 * job has not failed, answers that job and adds nothing (`created` false).
 */
export async function startJob(
  tx: Queryable,
  j: { accountId: string; kind: JobKind; subject: string; credits?: number },
  /** `ahead`: the account's jobs of this kind queued or running before this one. */
  enqueue: (tx: Queryable, jobId: string, ahead: number) => Promise<void>,
  /** Whether a succeeded job of the subject no longer stands (what it made was deleted). */
  outlived?: (result: Record<string, unknown>, jobId: string) => Promise<boolean>,
): Promise<{ job: Job; created: boolean }> {
  // Two starts of one account and kind take turns, so the count below is exact.
  await lockAccountJobs(tx, j.accountId, j.kind);
  let { row, created } = await insertJob(tx, j);
  if (
    !created &&
    row.status === 'succeeded' &&
    outlived &&
    (await outlived(row.result ?? {}, row.id))
  ) {
    await deleteJob(tx, row.id);
    ({ row, created } = await insertJob(tx, j));
  }
  if (!created) return { job: toJob(row), created };
  const limit = UNFINISHED_PER_ACCOUNT[j.kind];
  const unfinished = await unfinishedJobs(tx, j.accountId, j.kind);
  // The new row counts: over the limit, the transaction (and the row) is rolled back.
  if (unfinished > limit)
    throw new DomainError(
      'too_many_jobs',
      `This account already has ${limit} ${j.kind.replace('_', ' ')} jobs queued or running; wait for one to finish (job_status), then try again.`,
      { limit },
      { headers: { 'Retry-After': '10' } },
    );
  if (j.kind === 'video_preview') await trimFinishedJobs(tx, j.accountId, j.kind, PREVIEWS_KEPT);
  await enqueue(tx, row.id, unfinished - 1);
  return { job: toJob(row), created };
}

/**
 * Queued or running jobs one account may have of each kind: one account's burst waits its
 * turn instead of filling the queue of a pool every account shares.
 */
export const UNFINISHED_PER_ACCOUNT: Record<JobKind, number> = {
  video_export: 3,
  video_preview: 4,
  genome: 1,
  generation: 16,
  draft_week: 2,
  history_import: 1,
  drawing_export: 4,
  drawing_save: 4,
  reply: 20,
  reply_drafts: 4,
  engagement_action: 50,
  agent_task: 2,
};

/** Finished poster frames kept per account (older ones go as new ones start). */
export const PREVIEWS_KEPT = 8;

/** Progress smaller than this does not end a wait (workers write it a few times a second). */
export const PROGRESS_STEP = 0.1;

/** Whether `now` is a change worth answering a waiting caller with. */
type JobState = Pick<JobRow, 'status' | 'stage' | 'progress'>;

const movedOn = (from: JobState, now: JobRow) =>
  now.status !== from.status ||
  now.stage !== from.stage ||
  now.progress - from.progress >= PROGRESS_STEP ||
  finished(now);

/**
 * The caller's job (another account's is not found). With `wait_s`, an unfinished job is
 * answered when it moves on (its status or stage changes, or its progress by PROGRESS_STEP),
 * or when the time is up, whichever comes first: a poller makes a few calls a job, not one
 * per progress write.
 */
export async function jobStatus(
  deps: { pool: Pool; notifications: Notifications },
  caller: { accountId: string },
  input: JobStatusInput,
  /** The state the caller saw last (waitForJob): a change since then answers at once. */
  seen?: JobState,
): Promise<Job> {
  const read = async () => {
    const row = await findJob(deps.pool, caller.accountId, input.job_id);
    if (!row) throw notFound('Job');
    return row;
  };
  const read1 = await read();
  if (finished(read1) || input.wait_s <= 0 || (seen && movedOn(seen, read1))) return toJob(read1);
  const first: JobState = seen ?? read1;

  let wake: () => void = () => {};
  const nextWake = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });
  let woken = nextWake();
  // Subscribed before reading again: a change committed after that read cannot be missed.
  const unsubscribe = await deps.notifications.subscribe(JOB_CHANGED_CHANNEL, (payload) => {
    if (payload === undefined || payload === read1.id) wake();
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeUp = new Promise<'time'>((resolve) => {
      timer = setTimeout(() => resolve('time'), input.wait_s * 1000);
    });
    let now = await read();
    while (!movedOn(first, now)) {
      const why = await Promise.race([woken, timeUp]);
      woken = nextWake();
      now = await read();
      if (why === 'time') break;
    }
    return toJob(now);
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}

/**
 * Waits up to `timeoutS` for the caller's job to finish, on the shared LISTEN connection;
 * answers the job as it then is (unfinished when the time ran out).
 */
export async function waitForJob(
  deps: { pool: Pool; notifications: Notifications },
  caller: { accountId: string },
  jobId: string,
  timeoutS: number,
  /** Told each state the job moves on to (a stage, a step of progress), for progress reports. */
  onChange?: (job: Job) => Promise<void>,
): Promise<Job> {
  const giveUpAt = Date.now() + timeoutS * 1000;
  let job = await jobStatus(deps, caller, { job_id: jobId, wait_s: 0 });
  // The job may be under way already: its state as first read is news too.
  if (onChange && job.stage && job.status === 'running') await onChange(job);
  while (job.status === 'queued' || job.status === 'running') {
    const left = (giveUpAt - Date.now()) / 1000;
    if (left <= 0) break;
    const next = await jobStatus(
      deps,
      caller,
      { job_id: jobId, wait_s: Math.min(MAX_WAIT_S, left) },
      job,
    );
    if (onChange && (next.stage !== job.stage || next.progress !== job.progress))
      await onChange(next);
    job = next;
  }
  return job;
}

/** A failure the job's own error explains to the user: final, never retried. */
export class JobFailure extends Error {}

/** This attempt is no longer the job's to finish (another overtook it, or it was failed). */
export class AttemptSuperseded extends Error {}

/** Progress is written at most this often (a stage change is written at once). */
const PROGRESS_EVERY_MS = 250;

export type ProgressReport = (progress: number, stage: string) => Promise<void>;

/**
 * Marks the job succeeded with `result` inside the caller's transaction, so that what the
 * job made (an asset, say) and its success commit together; throws AttemptSuperseded (and so
 * rolls the transaction back) when this attempt may no longer finish it.
 */
export type FinishInside = (tx: Queryable, result: Record<string, unknown>) => Promise<void>;

/**
 * Runs attempt `attempt.number` of job `jobId` in a worker: running, progress at most a few
 * times a second, then succeeded with `work`'s result, or failed with a JobFailure's message
 * (or, on the last attempt, any error's). Other errors on earlier attempts are thrown, for
 * Graphile Worker to retry. A job finished already (a repeated run) is left as it is. Work
 * that stores something finishes the job in the same transaction through `finish`.
 */
export async function runJobAttempt(
  pool: Pool,
  jobId: string,
  attempt: { number: number; max: number },
  work: (report: ProgressReport, finish: FinishInside) => Promise<Record<string, unknown>>,
  unexpected: (err: unknown) => string,
): Promise<'succeeded' | 'failed' | 'skipped'> {
  if (!(await markRunning(pool, jobId, attempt.number))) return 'skipped';
  let lastWrite = 0;
  let lastStage = '';
  const report: ProgressReport = async (progress, stage) => {
    const now = Date.now();
    if (stage === lastStage && now - lastWrite < PROGRESS_EVERY_MS) return;
    lastWrite = now;
    lastStage = stage;
    await recordProgress(pool, jobId, progress, stage);
  };
  let finished = false;
  const finish: FinishInside = async (tx, result) => {
    if (!(await finishJob(tx, jobId, { result }, attempt.number))) throw new AttemptSuperseded();
    finished = true;
  };
  let result: Record<string, unknown>;
  try {
    result = await work(report, finish);
  } catch (err) {
    if (err instanceof AttemptSuperseded) return 'skipped';
    if (!(err instanceof JobFailure) && attempt.number < attempt.max) throw err;
    const error = err instanceof JobFailure ? err.message : unexpected(err);
    await failJob(pool, jobId, error, attempt.number);
    return 'failed';
  }
  if (finished) return 'succeeded';
  return (await finishJob(pool, jobId, { result }, attempt.number)) ? 'succeeded' : 'skipped';
}

/**
 * Fails an unfinished job with `error` and gives back the credits it took, in one
 * transaction: false when it had finished already (nothing changes, nothing is refunded).
 */
export async function failJob(
  pool: Pool,
  jobId: string,
  error: string,
  attempt?: number,
): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const failed = await finishedJob(tx, jobId, { error }, attempt);
    if (failed && failed.credits > 0) await addCredits(tx, failed.account_id, failed.credits);
    return failed !== undefined;
  });
}

/**
 * Fails the jobs no worker will run again (a worker killed during the last attempt, a job
 * removed), each with a reason; the reconciler's cron. Answers how many.
 */
export async function failAbandonedJobs(pool: Pool): Promise<number> {
  const prefixes = Object.fromEntries(JOB_KINDS.map((k) => [k, workJobKey(k, '')])) as Record<
    JobKind,
    string
  >;
  let failed = 0;
  for (const job of await abandonedJobs(pool, prefixes)) {
    const error = `The job stopped after ${job.attempts} attempt${job.attempts === 1 ? '' : 's'} without finishing (its worker ended or it kept failing); start it again.`;
    if (await failJob(pool, job.id, error)) failed++;
  }
  return failed;
}

/** Poster frames are kept an hour (the same times asked again answer them), then deleted. */
export const PREVIEW_KEEP_HOURS = 1;

/** Deletes previews finished more than PREVIEW_KEEP_HOURS ago (the reconciler's cron). */
export const deleteOldPreviews = (pool: Pool) =>
  dropFinishedJobs(pool, 'video_preview', { hours: PREVIEW_KEEP_HOURS });

export type DroppedJob = { id: string; account_id: string; result: Record<string, unknown> | null };

/**
 * Deletes the finished jobs of `kind` past keeping: finished over `hours` ago, or one
 * account's beyond its `keep` newest. Each is handed to `drop` first, for what goes with it
 * (its files): a job whose files are gone is made again when asked for, while files whose
 * job is gone would be kept for ever. Answers how many were deleted.
 */
export async function dropFinishedJobs(
  pool: Pool,
  kind: JobKind,
  past: { hours: number } | { accountId: string; keep: number },
  drop?: (job: DroppedJob) => Promise<void>,
): Promise<number> {
  const jobs = await finishedJobsPast(pool, kind, past);
  if (drop) for (const job of jobs) await drop(job);
  if (jobs.length)
    await deleteJobs(
      pool,
      jobs.map((j) => j.id),
    );
  return jobs.length;
}

/** A succeeded job of `kind`, whoever's (for an address that carries its own signature). */
export async function succeededJob(pool: Pool, jobId: string, kind: JobKind) {
  const job = await jobById(pool, jobId);
  return job?.kind === kind && job.status === 'succeeded' ? job : undefined;
}

/**
 * Starts a job (in its own transaction, through `start`) and waits up to `waitS` for it,
 * for a call that answers with what the job made (poster frames, a drawing's file): still
 * unfinished is 409 `<code>_pending` saying `stillRunning` (asked again, the same job
 * answers), failed is 409 `<code>_failed` with the job's error.
 */
export async function startAndAwait(
  deps: { pool: Pool; notifications: Notifications },
  caller: { accountId: string },
  start: (tx: Queryable) => Promise<{ job: Job; created: boolean }>,
  opts: { waitS: number; code: JobWaitCode; stillRunning: string },
): Promise<{ job: Job; created: boolean }> {
  const started = await withTransaction(deps.pool, start);
  const job = await waitForJob(deps, caller, started.job.job_id, opts.waitS);
  if (job.status === 'queued' || job.status === 'running')
    throw conflict(`${opts.code}_pending`, opts.stillRunning);
  if (job.status === 'failed')
    throw conflict(`${opts.code}_failed`, job.error ?? 'The job failed; ask again.');
  return { job, created: started.created };
}

/** What reading a job needs: the pool and the process's one LISTEN connection. */
export type JobDeps = { pool: Pool; notifications: Notifications };

/**
 * How clients see a job, given by the caller that knows what a result links to (a video
 * export's asset: core/video/jobView.ts), so reading jobs needs no concept above jobs.
 */
export type JobView = (job: Job) => Job;

/** MCP job_status: the caller's job, waiting up to `wait_s` for a change. */
export async function getJobStatus(
  deps: JobDeps,
  caller: { accountId: string },
  input: JobStatusInput,
  view: JobView,
): Promise<Job> {
  return view(await jobStatus(deps, caller, input));
}

/** Jobs the dashboard's jobs page shows. */
export const RECENT_JOBS = 50;

/** The dashboard's jobs page: the account's newest jobs, each as job_status answers it. */
export async function listRecentJobs(
  db: Queryable,
  view: JobView,
  caller: { accountId: string },
): Promise<Job[]> {
  return (await listJobs(db, caller.accountId, RECENT_JOBS)).map(view);
}

export { forgetWorkers, heartbeat, releaseWorkers, sweepDeadWorkers } from './liveness.ts';
