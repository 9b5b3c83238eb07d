// A platform's rate limit, waited out: a 429 whose reset is named (X's x-rate-limit-reset, a
// connector's PublicationError.retryAt) reschedules the publication at that reset, up to a
// day ahead, without spending one of the post's attempts. Proven by the queued job's run_at.
import { beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { PublicationError } from '../../core/connectors/connector.ts';
import { nextMidnightUtc } from '../../core/connectors/http.ts';
import {
  PUBLISH_MAX_ATTEMPTS,
  publicationJobKey,
  RATE_LIMIT_MAX_WAITS,
} from '../../core/jobs/tasks.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { MAX_RATE_LIMIT_WAIT_MS, publishScheduledPost } from '../../core/posts/publication.ts';
import { hourAhead } from '../support/jobs.ts';
import {
  type OAuthStandIn,
  standInConnector,
  standInOAuthApp,
  startOAuthStandIn,
} from '../support/oauthTokenServer.ts';
import { call, connectPlatform, makeAccount, makeKey } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY_B64 = Buffer.alloc(32, 42).toString('base64');
const KEY = credentialsKey(KEY_B64);

let standIn: OAuthStandIn;
beforeAll(async () => {
  standIn = await startOAuthStandIn();
  return () => standIn.close();
});
const server = useServer(() => ({
  env: { ...LOOPBACK_OUTBOUND, CREDENTIALS_KEY: KEY_B64, X_API_URL: standIn.url },
}));

const deps = () => ({
  connectors: { x: standInConnector(standIn.url, outboundPolicy(server.config)) },
  credentialsKey: KEY,
  oauth: {
    platformApps: server.config.platformApps,
    outbound: outboundPolicy(server.config),
    apps: { x: standInOAuthApp('x') },
  },
});

/** A post scheduled on a new brand's X connection, with its queued job's payload. */
async function scheduledPost(body: string) {
  const acct = await makeAccount(server.pool);
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
  await connectPlatform(server.pool, acct, 'x', {
    credentials: sealCredentials(KEY, { user_id: '2244994945', ...standIn.issue() }),
  });
  const res = await call(server, 'POST', '/v1/posts', {
    key,
    body: { platform: 'x', body, schedule_at: hourAhead() },
  });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  const row = (await server.pool.query('select scheduled_for from posts where id = $1', [id]))
    .rows[0];
  return { post_id: id, scheduled_for: row.scheduled_for.toISOString() as string };
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
    const reset = Math.floor(Date.now() / 1000) + 3600;
    standIn.rateLimitNext(reset);
    expect(
      await publishScheduledPost(server.pool, deps(), { ...job, attempts_before: 0 }, attempt(1)),
    ).toBe('retrying');
    const next = await queued(job.post_id);
    expect(next.run_at.getTime()).toBe(reset * 1000);
    expect(next.max_attempts).toBe(PUBLISH_MAX_ATTEMPTS);
    expect(next.payload).toMatchObject({ attempts_before: 0, rate_limit_waits: 1 });
    const post = (await server.pool.query('select status from posts where id = $1', [job.post_id]))
      .rows[0];
    expect(post.status).toBe('publishing');
    expect(standIn.posts.some((p) => p.text === 'at the reset')).toBe(false);
  });

  it('waits even on the last attempt, handing that attempt back', async () => {
    const job = await scheduledPost('last attempt throttled');
    const reset = Math.floor(Date.now() / 1000) + 900;
    standIn.rateLimitNext(reset);
    const result = await publishScheduledPost(
      server.pool,
      deps(),
      { ...job, attempts_before: PUBLISH_MAX_ATTEMPTS - 1 },
      attempt(PUBLISH_MAX_ATTEMPTS),
    );
    expect(result).toBe('retrying');
    const next = await queued(job.post_id);
    expect(next.run_at.getTime()).toBe(reset * 1000);
    expect(next.max_attempts).toBe(1);
  });

  it('waits a day at most for a reset said to be further', async () => {
    const job = await scheduledPost('a far reset');
    standIn.rateLimitNext(Math.floor(Date.now() / 1000) + 3 * 86_400);
    const before = Date.now();
    await publishScheduledPost(server.pool, deps(), { ...job, attempts_before: 0 }, attempt(1));
    const runAt = (await queued(job.post_id)).run_at.getTime();
    expect(runAt).toBeGreaterThanOrEqual(before + MAX_RATE_LIMIT_WAIT_MS);
    expect(runAt).toBeLessThanOrEqual(Date.now() + MAX_RATE_LIMIT_WAIT_MS);
  });

  it('spends attempts again once the publication has waited its share of resets', async () => {
    const job = await scheduledPost('throttled for good');
    standIn.rateLimitNext(Math.floor(Date.now() / 1000) + 3600);
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
    expect(post).toEqual({ status: 'failed', error: 'x answered 429: Too Many Requests' });
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
