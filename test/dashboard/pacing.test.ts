// The dashboard's pacing against the account's request budget (web/src/pacing.ts): a call the
// spent budget refuses waits the API's Retry-After and goes again instead of showing an error,
// and the jobs list, while a job runs, is read 2 s after it starts, then less often up to every
// 10 s.
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import { setBudget } from '../../core/accounts/service.ts';
import { ApiError, answerOf, type Job, retryAfterMs } from '../../web/src/api.ts';
import {
  BUDGET_RETRIES,
  budgetRetryDelay,
  type JobsWatch,
  nextJobsRead,
  RETRY_DEFAULTS,
  retryWhenBudgetSpent,
} from '../../web/src/pacing.ts';
import { signedInDashboard } from '../support/server.ts';
import { useServer } from '../support/service.ts';
import { awayFromMinuteBoundary } from '../support/wait.ts';

const server = useServer();

const budgetSpent = (retryAfter: string | null = '1') =>
  new ApiError(429, { detail: 'The request budget is spent.', code: 'rate_limited' }, retryAfter);

describe('a call refused for the spent request budget', () => {
  it("is sent again after the API's own Retry-After", async () => {
    await awayFromMinuteBoundary(15_000);
    const me = await signedInDashboard(server, 'free'); // its /app/api/session counts: 1
    await setBudget(server.pool, me.acct.accountId, 2);
    const jobs = () => fetch(`${server.baseUrl}/app/api/jobs`, { headers: me.headers });
    expect((await jobs()).status).toBe(200); // 2
    const refused = await jobs();
    const header = refused.headers.get('retry-after');
    const err = await answerOf(refused).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(header)).toBeGreaterThanOrEqual(1);
    expect((err as ApiError).retryAfterMs).toBe(Number(header) * 1000);
    expect(retryWhenBudgetSpent(0, err)).toBe(true);
    expect(budgetRetryDelay(0, err)).toBe(Number(header) * 1000);
    // A few times at most; then the page shows the API's message.
    expect(retryWhenBudgetSpent(BUDGET_RETRIES - 1, err)).toBe(true);
    expect(retryWhenBudgetSpent(BUDGET_RETRIES, err)).toBe(false);
  });

  it('shows no error on a page: its query succeeds once the budget allows, and so does a change', async () => {
    const errors: unknown[] = [];
    const client = new QueryClient({
      queryCache: new QueryCache({ onError: (e) => errors.push(e) }),
      mutationCache: new MutationCache({ onError: (e) => errors.push(e) }),
      defaultOptions: RETRY_DEFAULTS,
    });
    let reads = 0;
    const data = await client.fetchQuery({
      queryKey: ['jobs'],
      queryFn: async () => {
        if (++reads === 1) throw budgetSpent('1');
        return { jobs: [] };
      },
    });
    expect(data).toEqual({ jobs: [] });
    expect(reads).toBe(2);

    let sends = 0;
    const saved = await client
      .getMutationCache()
      .build(client, {
        mutationFn: async () => {
          if (++sends === 1) throw budgetSpent('1');
          return 'saved';
        },
      })
      .execute(undefined);
    expect(saved).toBe('saved');
    expect(sends).toBe(2);
    expect(errors).toEqual([]);
    client.clear();
  });

  it('any other failure shows at once, and so does a wait past the minute or another 429', () => {
    expect(retryWhenBudgetSpent(0, new ApiError(500, { detail: 'x' }))).toBe(false);
    expect(retryWhenBudgetSpent(0, new ApiError(422, { detail: [] }))).toBe(false);
    expect(retryWhenBudgetSpent(0, new ApiError(401, { detail: 'x' }))).toBe(false);
    expect(retryWhenBudgetSpent(0, new Error('offline'))).toBe(false);
    // A sign-in throttle's 429 asks for minutes: the page says so instead of waiting.
    const throttled = new ApiError(429, { detail: 'x', code: 'login_throttled' }, '900');
    expect(retryWhenBudgetSpent(0, throttled)).toBe(false);
    expect(retryWhenBudgetSpent(0, budgetSpent('900'))).toBe(false);
    // With no Retry-After, a few seconds.
    expect(retryWhenBudgetSpent(0, budgetSpent(null))).toBe(true);
    expect(budgetRetryDelay(0, budgetSpent(null))).toBe(5_000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:12 GMT', now)).toBe(12_000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

const job = (job_id: string, status: Job['status']): Job => ({
  job_id,
  kind: 'video_export',
  status,
  progress: 0,
  stage: null,
  result: null,
  error: null,
  attempts: 0,
  created_at: '2026-01-01T00:00:00Z',
  started_at: null,
  finished_at: null,
});

describe('the jobs list while a job runs', () => {
  let watch: JobsWatch | undefined;
  /** The wait after the list's `reads`-th read, as the jobs query asks it. */
  const waitAfter = (reads: number, jobs: Job[]) => {
    const next = nextJobsRead(watch, jobs, reads);
    watch = next.watch;
    return next.wait;
  };
  afterEach(() => {
    watch = undefined;
  });

  it('is read 2 s after a job starts, then less often, at most every 10 s', () => {
    const running = [job('1', 'running'), job('0', 'succeeded')];
    const waits = [3, 4, 5, 6, 7, 8, 9].map((reads) => waitAfter(reads, running));
    expect(waits).toEqual([2_000, 3_000, 4_500, 6_750, 10_000, 10_000, 10_000]);
    // A long export: 6 reads a minute once settled, well within a free account's 120.
    expect(60_000 / (waits.at(-1) as number)).toBe(6);
  });

  it('asked again after the same read, gives the same wait', () => {
    const running = [job('1', 'queued')];
    expect(waitAfter(1, running)).toBe(2_000);
    expect(waitAfter(2, running)).toBe(3_000);
    expect(waitAfter(2, running)).toBe(3_000);
  });

  it('starts again at 2 s when another job starts or one ends, and stops with none unfinished', () => {
    for (const reads of [1, 2, 3, 4, 5, 6]) waitAfter(reads, [job('1', 'running')]);
    expect(waitAfter(7, [job('2', 'queued'), job('1', 'running')])).toBe(2_000);
    expect(waitAfter(8, [job('2', 'running'), job('1', 'running')])).toBe(3_000);
    expect(waitAfter(9, [job('2', 'running'), job('1', 'succeeded')])).toBe(2_000);
    expect(waitAfter(10, [job('2', 'failed'), job('1', 'succeeded')])).toBe(false);
    expect(waitAfter(11, [])).toBe(false);
    expect(waitAfter(12, [job('3', 'queued')])).toBe(2_000);
  });
});
