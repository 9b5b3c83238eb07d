// An OAuth connection's access token: refreshed before it expires and after a 401, under the
// connection's lock so that two jobs never spend one refresh token, with the refresh token
// each refresh returns stored in the same transaction; a refused refresh marks the connection
// to reconnect and fails the post. The shipped X OAuthApp and connector, run by the shipped
// publication job, against the X stand-in (single-use refresh tokens, a spent one presented
// again revokes its family).
import { afterAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { listConnectedAccounts, readThrough } from '../../core/connections/service.ts';
import { connectionTokens } from '../../core/connections/tokens.ts';
import { xOAuthApp } from '../../core/connectors/oauth/x.ts';
import type { OAuthApp } from '../../core/connectors/oauthApp.ts';
import { hourAhead, publishNow } from '../support/jobs.ts';
import type { ScheduledPost } from '../support/platforms/publishingHarness.ts';
import { useXHarness, useXStandIn, xEnv } from '../support/platforms/xHarness.ts';
import { LOOPBACK_OUTBOUND, startWorkerBeside, useServer } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const KEY_B64 = Buffer.alloc(32, 40).toString('base64');
const KEY = credentialsKey(KEY_B64);

const x = useXStandIn();
const server = useServer(() => ({
  env: {
    ...LOOPBACK_OUTBOUND,
    CREDENTIALS_KEY: KEY_B64,
    ...xEnv(x),
  },
}));

let refreshDelayMs = 0;
afterAll(() => {
  refreshDelayMs = 0;
});
/**
 * The shipped X OAuthApp, its refresh held back `refreshDelayMs` so that two jobs' refreshes
 * overlap (the stand-in answers at once).
 */
const app: OAuthApp = {
  ...xOAuthApp,
  async refresh(ctx, tokens) {
    if (refreshDelayMs) await new Promise((r) => setTimeout(r, refreshDelayMs));
    return xOAuthApp.refresh(ctx, tokens);
  },
};
const h = useXHarness(server, x, KEY, { oauthApp: app });

/**
 * Runs the jobs of `posts` at the same time; a job put off because it met another's refresh
 * runs again as its retry would, once the first round is over. Answers each post's last result.
 */
async function publishTogether(posts: ScheduledPost[]) {
  const first = await Promise.allSettled(posts.map((post) => h.runJob(post)));
  const retried: ScheduledPost[] = [];
  const results: string[] = [];
  for (const [i, r] of first.entries()) {
    if (r.status === 'fulfilled' && r.value !== 'retrying') {
      results.push(r.value);
      continue;
    }
    if (r.status === 'rejected') throw r.reason;
    retried.push(posts[i]!);
    results.push(await h.runJob(posts[i]!, 2));
  }
  return { results, retried };
}

const connectionRow = async (id: string) =>
  (await server.pool.query('select * from connected_accounts where id = $1', [id])).rows[0];
const storedTokens = async (id: string) => (await h.connection(id)).credentials;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const tweetsOf = (texts: string[]) => x.tweets.filter((t) => texts.includes(t.text));

describe('two jobs publishing through one connection whose token expired', () => {
  it('refresh once between them when the token is known to be expiring, and both publish', async () => {
    const issued = x.issueTokens();
    const { key, connectedId } = await h.connectBrand({ ...issued, expires_at: ago(60_000) });
    const texts = ['first of two', 'second of two'];
    const posts = [
      await h.schedule(key, { body: texts[0]! }),
      await h.schedule(key, { body: texts[1]! }),
    ];
    const before = { ...x.refreshes };
    refreshDelayMs = 300;
    try {
      const { results, retried } = await publishTogether(posts);
      expect(results).toEqual(['published', 'published']);
      // One met the other's refresh, and was put off rather than left waiting on the lock.
      expect(retried).toHaveLength(1);
    } finally {
      refreshDelayMs = 0;
    }
    expect(x.refreshes).toEqual({ ok: before.ok + 1, reused: before.reused });
    const stored = await storedTokens(connectedId);
    expect(stored.refresh_token).not.toBe(issued.refresh_token);
    expect(stored.user_id).toBe(x.user.id);
    const made = tweetsOf(texts);
    expect(made).toHaveLength(2);
    for (const post of posts)
      expect(await h.row(post.id)).toMatchObject({
        status: 'published',
        external_post_id: made.find((t) => t.text === texts[posts.indexOf(post)])!.id,
      });
    // The new expiry is stored with the tokens: two hours ahead.
    const row = await connectionRow(connectedId);
    expect(row.token_expires_at.getTime()).toBeGreaterThan(Date.now() + 7_000_000);
    expect(row.status).toBe('active');
  });

  it('refresh once between them after both were refused with a 401, and both publish', async () => {
    // X expired the token sooner than it said: both posts meet a 401.
    const issued = x.issueTokens();
    x.expireAccessTokens();
    const { key, connectedId } = await h.connectBrand({ ...issued, expires_at: hourAhead() });
    const texts = ['refused first', 'refused second'];
    const posts = [
      await h.schedule(key, { body: texts[0]! }),
      await h.schedule(key, { body: texts[1]! }),
    ];
    const before = { ...x.refreshes };
    refreshDelayMs = 300;
    try {
      const { results, retried } = await publishTogether(posts);
      expect(results).toEqual(['published', 'published']);
      expect(retried).toHaveLength(1);
    } finally {
      refreshDelayMs = 0;
    }
    expect(x.refreshes).toEqual({ ok: before.ok + 1, reused: before.reused });
    expect((await storedTokens(connectedId)).refresh_token).not.toBe(issued.refresh_token);
    expect(tweetsOf(texts)).toHaveLength(2);
  });
});

describe('a refresh token', () => {
  it('is spent once: each refresh presents the one the last refresh stored', async () => {
    const issued = x.issueTokens();
    const { accountId, key, connectedId } = await h.connectBrand(issued);
    const before = { ...x.refreshes };
    let token = issued.access_token;
    // Three jobs in a row, each meeting a 401 with the token it was given.
    for (let i = 0; i < 3; i++) {
      const credentials = await storedTokens(connectedId);
      const tokens = connectionTokens(
        { pool: server.pool, credentialsKey: KEY, oauth: h.oauth },
        { id: connectedId, platform: 'x', credentials },
        app,
      );
      token = await tokens.refused(token);
      expect(credentials.access_token).toBe(token);
    }
    // A spent one presented again would have revoked the family (and counted as reused).
    expect(x.refreshes).toEqual({ ok: before.ok + 3, reused: before.reused });
    const stored = await storedTokens(connectedId);
    // A job holding the old token learns the stored one without a refresh of its own.
    const late = connectionTokens(
      { pool: server.pool, credentialsKey: KEY, oauth: h.oauth },
      { id: connectedId, platform: 'x', credentials: { ...issued } },
      app,
    );
    expect(await late.refused(issued.access_token)).toBe(stored.access_token);
    expect(x.refreshes.ok).toBe(before.ok + 3);
    // The stored tokens still work: the family was never revoked.
    expect(await h.runJob(await h.schedule(key, { body: 'after three refreshes' }))).toBe(
      'published',
    );
    expect((await listConnectedAccounts(server.pool, accountId))[0]).toMatchObject({
      status: 'active',
      reconnect_soon: false,
    });
  });
});

describe("another job's refresh", () => {
  it('is not waited for: the job fails retryable at once, holding no connection, and is retried shortly', async () => {
    const issued = x.issueTokens();
    const { connectedId } = await h.connectBrand({ ...issued, expires_at: ago(1000) });
    const holder = await server.pool.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from connected_accounts where id = $1 for update', [
        connectedId,
      ]);
      const tokens = connectionTokens(
        { pool: server.pool, credentialsKey: KEY, oauth: h.oauth },
        { id: connectedId, platform: 'x', credentials: await storedTokens(connectedId) },
        app,
      );
      const before = { ...x.refreshes };
      const started = Date.now();
      await expect(tokens.current()).rejects.toMatchObject({
        retryable: true,
        reconnect: false,
        retryAfterMs: 2_000,
        message: "Another job is refreshing the X connection's token; trying again shortly.",
      });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(x.refreshes).toEqual(before);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
  });
});

describe('a refresh the platform refuses', () => {
  const deadGrant =
    'The X connection needs to be reconnected: X refused to refresh its access token ' +
    '(X answered 400: invalid_request: Value passed for the token was invalid.).';

  it('marks the connection needs_reconnect and fails the post with the reason and post.failed', async () => {
    const issued = x.issueTokens();
    x.expireAccessTokens();
    // Another client spent the refresh token: presenting it again is refused.
    const { connectedId, key } = await h.connectBrand({ ...issued, refresh_token: 'xrt-spent' });
    const post = await h.schedule(key, { body: 'never refreshed' });
    expect(await h.runJob(post)).toBe('failed');
    const row = await h.row(post.id);
    expect(row.error).toBe(deadGrant);
    const { rows: events } = await server.pool.query(
      'select type, body from events where post_id = $1',
      [post.id],
    );
    expect(events.map((e) => e.type)).toEqual(['post.failed']);
    expect(JSON.parse(events[0].body).post.error).toBe(row.error);
    const connection = await connectionRow(connectedId);
    expect(connection.status).toBe('needs_reconnect');
    expect(connection.last_error).toBe(deadGrant);

    // The next post fails at once, without asking the platform again.
    const before = x.requests.length;
    const next = await h.schedule(key, { body: 'after the refusal' });
    expect(await h.runJob(next)).toBe('failed');
    expect((await h.row(next.id)).error).toMatch(/needs to be reconnected/);
    expect(x.requests.length).toBe(before);
  });

  it('is asked once by two jobs at the same time: both posts fail with its reason', async () => {
    const issued = x.issueTokens();
    const { connectedId, key } = await h.connectBrand({
      ...issued,
      refresh_token: 'xrt-spent-elsewhere',
      expires_at: ago(1000),
    });
    const posts = [
      await h.schedule(key, { body: 'refused one' }),
      await h.schedule(key, { body: 'refused two' }),
    ];
    const tokenCalls = () =>
      x.requests.filter((r) => r.method === 'POST' && r.path === '/2/oauth2/token').length;
    const before = tokenCalls();
    refreshDelayMs = 300;
    let retried: ScheduledPost[];
    try {
      const together = await publishTogether(posts);
      expect(together.results).toEqual(['failed', 'failed']);
      retried = together.retried;
    } finally {
      refreshDelayMs = 0;
    }
    expect(tokenCalls()).toBe(before + 1);
    // The job that met the refresh, retried, finds the connection marked and asks no one.
    for (const post of posts)
      expect((await h.row(post.id)).error).toBe(
        retried.includes(post)
          ? 'The connected X account @brand needs to be reconnected.'
          : deadGrant,
      );
    expect(await connectionRow(connectedId)).toMatchObject({
      status: 'needs_reconnect',
      last_error: deadGrant,
    });
  });

  it('keeps no token in the reason, even when the platform quotes it', async () => {
    const issued = x.issueTokens();
    const spent = 'xrt-spent-and-quoted';
    const { connectedId, key } = await h.connectBrand({
      ...issued,
      refresh_token: spent,
      expires_at: ago(1000),
    });
    const post = await h.schedule(key, { body: 'quoted refusal' });
    x.inject({
      line: 'POST /2/oauth2/token',
      answer: {
        status: 400,
        body: JSON.stringify({
          error: 'invalid_request',
          error_description: `Invalid refresh token: ${spent} (access ${issued.access_token})`,
        }),
      },
    });
    expect(await h.runJob(post)).toBe('failed');
    const { error } = await h.row(post.id);
    expect(error).toMatch(/Invalid refresh token: \[redacted\]/);
    const connection = await connectionRow(connectedId);
    expect(connection.status).toBe('needs_reconnect');
    for (const said of [error, connection.last_error]) {
      expect(said).not.toContain(spent);
      expect(said).not.toContain(issued.access_token);
    }
  });

  it('throws the queue a retryable failure with no token in it, even when X quotes it', async () => {
    const issued = x.issueTokens();
    const { key } = await h.connectBrand({ ...issued, expires_at: ago(-3_600_000) });
    const post = await h.schedule(key, { body: 'quoted post outage' });
    x.inject({
      line: 'POST /2/tweets',
      answer: {
        status: 503,
        body: JSON.stringify({
          title: 'Service Unavailable',
          detail: `Down for ${issued.access_token}`,
        }),
      },
    });
    // Graphile Worker logs what it is thrown and keeps it in the job's last_error.
    const thrown = await h.runJob(post, 1).then(
      () => expect.unreachable('a 503 on attempt 1 is retried'),
      (err: Error) => err,
    );
    expect(thrown.message).toContain('[redacted]');
    for (const said of [thrown.message, String(thrown.stack), String(thrown.cause)])
      expect(said).not.toContain(issued.access_token);
  });

  it('keeps no token in a refused post, its account or its event, even when X quotes it', async () => {
    const issued = x.issueTokens();
    const { connectedId, key } = await h.connectBrand({ ...issued, expires_at: ago(-3_600_000) });
    const post = await h.schedule(key, { body: 'quoted post refusal' });
    x.inject({
      line: 'POST /2/tweets',
      answer: {
        status: 400,
        body: JSON.stringify({
          title: 'Invalid Request',
          detail: `Your token ${issued.access_token} (refresh ${issued.refresh_token}) is invalid`,
        }),
      },
    });
    expect(await h.runJob(post)).toBe('failed');
    const { error } = await h.row(post.id);
    expect(error).toContain('[redacted]');
    const connection = await connectionRow(connectedId);
    const { rows } = await server.pool.query('select body::text from events where post_id = $1', [
      post.id,
    ]);
    for (const said of [error, connection.last_error, ...rows.map((r) => r.body)]) {
      expect(said).not.toContain(issued.access_token);
      expect(said).not.toContain(issued.refresh_token);
    }
  });

  it("fails the post but leaves the connection active when X refuses the operator's client (401)", async () => {
    const issued = x.issueTokens();
    const { connectedId, key } = await h.connectBrand({ ...issued, expires_at: ago(1000) });
    const post = await h.schedule(key, { body: 'refused client' });
    // The operator's client secret is wrong: reconnecting the account would not help.
    x.inject({
      line: 'POST /2/oauth2/token',
      answer: {
        status: 401,
        body: JSON.stringify({
          error: 'invalid_client',
          error_description: 'Client authentication failed.',
        }),
      },
    });
    expect(await h.runJob(post)).toBe('failed');
    const { error } = await h.row(post.id);
    expect(error).toMatch(/^X answered 401: .*Client authentication failed\.$/);
    expect(await connectionRow(connectedId)).toMatchObject({
      status: 'active',
      last_error: error,
    });
    expect((await storedTokens(connectedId)).refresh_token).toBe(issued.refresh_token);
  });

  it('is retried when the platform is unreachable, leaving the connection active', async () => {
    const issued = x.issueTokens();
    const { connectedId } = await h.connectBrand({ ...issued, expires_at: ago(1000) });
    const credentials = await storedTokens(connectedId);
    const unreachable = {
      ...h.oauth,
      platformApps: {
        ...server.config.platformApps,
        x: { ...server.config.platformApps.x, oauthUrl: 'http://127.0.0.1:9' },
      },
    };
    const tokens = connectionTokens(
      { pool: server.pool, credentialsKey: KEY, oauth: unreachable },
      { id: connectedId, platform: 'x', credentials },
      app,
    );
    await expect(tokens.current()).rejects.toMatchObject({ retryable: true, reconnect: false });
    expect((await connectionRow(connectedId)).status).toBe('active');
    expect((await storedTokens(connectedId)).refresh_token).toBe(issued.refresh_token);
  });
});

describe('the jobs that go through an OAuth connection', () => {
  it('a publication run by the worker refreshes the expired token, then publishes', async () => {
    const issued = x.issueTokens();
    const { key, connectedId } = await h.connectBrand({ ...issued, expires_at: ago(1000) });
    const post = await h.schedule(key, { body: 'through the worker' });
    const worker = await startWorkerBeside(server, {
      connectors: { x: h.connector },
      credentialsKey: KEY,
      platformApps: server.config.platformApps,
      oauthApps: { x: xOAuthApp },
      pools: ['publish'],
    });
    try {
      await publishNow(server.pool, post.id);
      const row = await waitFor(
        async () => {
          const r = await h.row(post.id);
          return ['published', 'failed'].includes(r.status) && r;
        },
        { what: 'the post to settle' },
      );
      expect(row).toMatchObject({ status: 'published', error: null });
    } finally {
      await worker.stop();
    }
    expect((await storedTokens(connectedId)).refresh_token).not.toBe(issued.refresh_token);
  });

  it('a reading gets the tokens too, refreshed after a 401', async () => {
    const issued = x.issueTokens();
    const { connectedId } = await h.connectBrand(issued);
    const row = await connectionRow(connectedId);
    const seen: string[] = [];
    const read = await readThrough(
      {
        pool: server.pool,
        connectors: {
          x: { publish: async () => Promise.reject(new Error('unused')), trends: async () => [] },
        },
        credentialsKey: KEY,
        oauth: h.oauth,
      },
      { id: connectedId, platform: 'x', handle: row.handle, credentials: row.credentials },
      'trends',
      'Reading trends',
      async (_connector, access) => {
        const token = await access.tokens!.current();
        seen.push(token, await access.tokens!.refused(token));
        return { trends: [] };
      },
    );
    expect(read.outcome).toBe('read');
    const stored = await storedTokens(connectedId);
    expect(seen).toEqual([issued.access_token, stored.access_token]);
    expect(stored.refresh_token).not.toBe(issued.refresh_token);
  });
});
