// How often the dashboard asks the API: its pages' calls count against the account's request
// budget (free: 120 a minute), so what it reads again on its own backs off, and a call refused
// because the minute's budget is spent waits out the Retry-After and goes again instead of
// showing an error.
import { ApiError, type Job } from './api.ts';

/** How many times a call refused for the spent budget is sent again before its error shows. */
export const BUDGET_RETRIES = 3;
/** The longest wait a retry accepts: the budget is a minute's, so it is free again within one. */
const MOST_WAIT_MS = 60_000;
/** The wait when a 429 names none. */
const DEFAULT_WAIT_MS = 5_000;

const budgetSpent = (err: unknown): err is ApiError =>
  err instanceof ApiError && err.status === 429 && err.code === 'rate_limited';

/**
 * Whether a failed call goes again: only one the request budget refused (nothing was done,
 * so a change is safe to send again), at most BUDGET_RETRIES times, and not when the wait
 * asked is longer than the budget's minute. Any other failure shows at once.
 */
export function retryWhenBudgetSpent(failureCount: number, err: unknown): boolean {
  if (!budgetSpent(err) || failureCount >= BUDGET_RETRIES) return false;
  return (err.retryAfterMs ?? DEFAULT_WAIT_MS) <= MOST_WAIT_MS;
}

/** How long before that retry: the Retry-After the 429 carried. */
export function budgetRetryDelay(_failureCount: number, err: unknown): number {
  return Math.min(
    MOST_WAIT_MS,
    (budgetSpent(err) ? err.retryAfterMs : undefined) ?? DEFAULT_WAIT_MS,
  );
}

/** The dashboard's QueryClient defaults: retries of queries and changes alike. */
export const RETRY_DEFAULTS = {
  queries: { retry: retryWhenBudgetSpent, retryDelay: budgetRetryDelay },
  mutations: { retry: retryWhenBudgetSpent, retryDelay: budgetRetryDelay },
};

/** The first and the longest wait between two reads of the jobs list while a job runs. */
export const JOBS_FIRST_WAIT_MS = 2_000;
export const JOBS_LONGEST_WAIT_MS = 10_000;

/**
 * The wait before the jobs list is read again, `reads` reads after its unfinished jobs last
 * changed: 2 s, half as long again each time, at most 10 s (6 reads a minute for a long export).
 */
export const jobsWait = (reads: number) =>
  Math.min(JOBS_LONGEST_WAIT_MS, Math.round(JOBS_FIRST_WAIT_MS * 1.5 ** reads));

/** Which jobs were unfinished, and at which read of the list that set was first seen. */
export type JobsWatch = { unfinished: string; since: number };

/**
 * When to read the jobs list again, given its jobs and how many times it has been read
 * (`reads`, growing by one a read): never while none is unfinished; soon after a job starts or
 * ends (the set of unfinished ones changed), then less and less often. The answer depends only
 * on its arguments, so asking again after the same read gives the same wait.
 */
export function nextJobsRead(
  watch: JobsWatch | undefined,
  jobs: readonly Job[],
  reads: number,
): { watch: JobsWatch | undefined; wait: number | false } {
  const unfinished = jobs
    .filter((j) => j.status === 'queued' || j.status === 'running')
    .map((j) => j.job_id)
    .sort()
    .join(',');
  if (!unfinished) return { watch: undefined, wait: false };
  const seen = watch?.unfinished === unfinished ? watch : { unfinished, since: reads };
  return { watch: seen, wait: jobsWait(reads - seen.since) };
}

/** How often an endpoint's webhook delivery log is read again while its page is open. */
export const DELIVERIES_WAIT_MS = 10_000;
