// A platform's rate limit, waited out: a 429 whose reset is named (X's x-rate-limit-reset, a
// connector's PublicationError.retryAt) reschedules the publication at that reset, up to a
// day ahead, without spending one of the post's attempts. Proven by the queued job's run_at, with
// the shipped X connector against the X stand-in.
import { describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { PublicationError } from '../../core/connectors/connector.ts';
import { nextMidnightUtc } from '../../core/connectors/http.ts';
import {
  PUBLISH_MAX_ATTEMPTS,
  publicationJobKey,
  RATE_LIMIT_MAX_WAITS,
} from '../../core/jobs/tasks.ts';
import { MAX_RATE_LIMIT_WAIT_MS, publishScheduledPost } from '../../core/posts/publication.ts';
import { useXHarness, useXStandIn, xEnv } from '../support/platforms/xHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY_B64 = Buffer.alloc(32, 42).toString('base64');
const KEY = credentialsKey(KEY_B64);

const x = useXStandIn();
const server = useServer(() => ({
  env: {
    ...LOOPBACK_OUTBOUND,
    CREDENTIALS_KEY: KEY_B64,
    ...xEnv(x),
  },
}));

const h = useXHarness(server, x, KEY);
// The shipped X connector and OAuthApp (OAUTH_APPS), through the shipped publication job.
const deps = () => ({ connectors: { x: h.connector }, credentialsKey: KEY, oauth: h.oauth });

/** X's next post answers 429 with an `x-rate-limit-reset` `inSeconds` ahead; its Unix time. */
function rateLimitNext(inSeconds: number): number {
  x.rateLimitResetS = inSeconds;
  x.inject({ line: 'POST /2/tweets', answer: 'rate_limit' });
  return Math.floor(Date.now() / 1000) + inSeconds;
}

/** Whether a run_at is the reset X named (to the second it was computed in). */
const atReset = (runAt: Date, reset: number) =>
  expect(Math.abs(runAt.getTime() - reset * 1000)).toBeLessThanOrEqual(1000);

/** A post scheduled on a new brand's X connection, with its queued job's payload. */
async function scheduledPost(body: string) {
  const { key } = await h.connectBrand();
  const post = await h.schedule(key, { body });
  return { post_id: post.id, scheduled_for: post.at };
}

const queued = async (postId: string) =>
  (
    await server.pool.query(
      // The payload is not in the public `jobs` view.
      `select run_at, max_attempts, attempts, payload from graphile_worker._private_jobs
       where key = $1`,
      [publicationJobKey(postId)],
    )
  ).rows[0];

const attempt = (number: number) => ({
  number,
  max: PUBLISH_MAX_ATTEMPTS,
  signal: new AbortController().signal,
});

describe("a 429 with its rate limit's reset", () => {
  it('reschedules the publication at the reset, spending no attempt', async () => {
    const job = await scheduledPost('at the reset');
    const reset = rateLimitNext(3600);
    expect(
      await publishScheduledPost(server.pool, deps(), { ...job, attempts_before: 0 }, attempt(1)),
    ).toBe('retrying');
    const next = await queued(job.post_id);
    atReset(next.run_at, reset);
    expect(next.max_attempts).toBe(PUBLISH_MAX_ATTEMPTS);
    expect(next.payload).toMatchObject({ attempts_before: 0, rate_limit_waits: 1 });
    const post = (await server.pool.query('select status from posts where id = $1', [job.post_id]))
      .rows[0];
    expect(post.status).toBe('publishing');
    expect(x.tweets.some((t) => t.text === 'at the reset')).toBe(false);
  });

  it('waits even on the last attempt, handing that attempt back', async () => {
    const job = await scheduledPost('last attempt throttled');
    const reset = rateLimitNext(900);
    const result = await publishScheduledPost(
      server.pool,
      deps(),
      { ...job, attempts_before: PUBLISH_MAX_ATTEMPTS - 1 },
      attempt(PUBLISH_MAX_ATTEMPTS),
    );
    expect(result).toBe('retrying');
    const next = await queued(job.post_id);
    atReset(next.run_at, reset);
    expect(next.max_attempts).toBe(1);
  });

  it('waits a day at most for a reset said to be further', async () => {
    const job = await scheduledPost('a far reset');
    rateLimitNext(3 * 86_400);
    const before = Date.now();
    await publishScheduledPost(server.pool, deps(), { ...job, attempts_before: 0 }, attempt(1));
    const runAt = (await queued(job.post_id)).run_at.getTime();
    expect(runAt).toBeGreaterThanOrEqual(before + MAX_RATE_LIMIT_WAIT_MS);
    expect(runAt).toBeLessThanOrEqual(Date.now() + MAX_RATE_LIMIT_WAIT_MS);
  });

  it('spends attempts again once the publication has waited its share of resets', async () => {
    const job = await scheduledPost('throttled for good');
    rateLimitNext(3600);
    const result = await publishScheduledPost(
      server.pool,
      deps(),
      { ...job, attempts_before: PUBLISH_MAX_ATTEMPTS - 1, rate_limit_waits: RATE_LIMIT_MAX_WAITS },
      attempt(PUBLISH_MAX_ATTEMPTS),
    );
    expect(result).toBe('failed');
    const post = (
      await server.pool.query('select status, error from posts where id = $1', [job.post_id])
    ).rows[0];
    expect(post).toEqual({ status: 'failed', error: 'X answered 429: Rate limit exceeded.' });
  });

  it("at a connector's own reset time (LinkedIn's midnight UTC, no header)", async () => {
    const job = await scheduledPost('until midnight');
    const midnight = nextMidnightUtc();
    const connectors = {
      x: {
        publish: async () => {
          throw new PublicationError('linkedin answered 429: daily limit', {
            retryable: true,
            status: 429,
            retryAt: midnight,
          });
        },
      },
    };
    await publishScheduledPost(
      server.pool,
      { ...deps(), connectors },
      { ...job, attempts_before: 0 },
      attempt(1),
    );
    const next = await queued(job.post_id);
    expect(next.run_at.toISOString()).toBe(midnight.toISOString());
    expect(midnight.toISOString()).toMatch(/T00:00:00\.000Z$/);
    expect(midnight.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
  });
});
