// The dashboard's session routes count against the account's request budget (CONTRACT.md: one
// budget per account, shared by REST and GraphQL and counted for MCP and /app/api): a session
// cannot go on once the account's keys have spent the minute, nor the other way round, and a
// free account's session has its 120 requests a minute.
import { describe, expect, it } from 'vitest';
import { setBudget } from '../../core/accounts/service.ts';
import { call, makeKey, type Reply, signedInDashboard } from '../support/server.ts';
import { useServer } from '../support/service.ts';
import { awayFromMinuteBoundary } from '../support/wait.ts';

const server = useServer();

const postCount = async (accountId: string) =>
  (
    await server.pool.query<{ n: number }>(
      'select count(*)::int as n from posts where account_id = $1',
      [accountId],
    )
  ).rows[0]!.n;

/** A 429 of the request budget, as REST answers it. */
function expectBudgetSpent(res: Reply, limit: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body).toMatchObject({ code: 'rate_limited', detail: expect.stringMatching(/budget/) });
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('retry-after')).toBe(String(reset));
}

describe('the request budget on the dashboard', () => {
  it('with the API key at its budget, the same account session is refused too, and writes nothing', async () => {
    await awayFromMinuteBoundary(15_000);
    const me = await signedInDashboard(server, 'plus'); // its /app/api/session counts: 1
    await setBudget(server.pool, me.acct.accountId, 6);
    const key = await makeKey(server.pool, me.acct.accountId, ['read', 'publish']);
    for (let i = 0; i < 5; i++) {
      const made = await call(server, 'POST', '/v1/posts', {
        key,
        body: { platform: 'mastodon', body: `By key ${i}` },
      });
      expect(made.status).toBe(201);
    }
    expectBudgetSpent(await call(server, 'GET', '/v1/me', { key }), 6);

    const before = await postCount(me.acct.accountId);
    expectBudgetSpent(
      await me.send('POST', '/posts', { platform: 'mastodon', body: 'By session' }),
      6,
    );
    expectBudgetSpent(await call(server, 'GET', '/app/api/board', { headers: me.headers }), 6);
    // The session-only key and webhook routes count the same.
    expectBudgetSpent(await call(server, 'GET', '/apikeys', { headers: me.headers }), 6);
    expectBudgetSpent(
      await call(server, 'POST', '/webhooks', {
        headers: me.headers,
        body: { url: 'https://example.com/hook' },
      }),
      6,
    );
    expect(await postCount(me.acct.accountId)).toBe(before);
    // Signing out (and in) stays open: the budget never locks a person out of the session.
    expect((await call(server, 'GET', '/auth/session', { headers: me.headers })).status).toBe(200);
  }, 60_000);

  it('a session spending the minute leaves the account keys none, with RateLimit headers on each answer', async () => {
    await awayFromMinuteBoundary(15_000);
    const me = await signedInDashboard(server, 'plus'); // 1
    await setBudget(server.pool, me.acct.accountId, 4);
    const key = await makeKey(server.pool, me.acct.accountId, ['read']);
    const board = await call(server, 'GET', '/app/api/board', { headers: me.headers }); // 2
    expect(board.status).toBe(200);
    expect(board.headers.get('ratelimit-limit')).toBe('4');
    expect(board.headers.get('ratelimit-remaining')).toBe('2');
    const made = await me.send('POST', '/posts', { platform: 'mastodon', body: 'Mine' }); // 3
    expect(made.status).toBe(201);
    const usage = await call(server, 'GET', '/app/api/usage', { headers: me.headers }); // 4
    expect(usage.body.request_budget).toMatchObject({ limit: 4, used: 4, remaining: 0 });
    expectBudgetSpent(await call(server, 'GET', '/v1/me', { key }), 4);
  }, 60_000);

  it("a free account's session has 120 requests a minute", async () => {
    await awayFromMinuteBoundary(40_000);
    const me = await signedInDashboard(server, 'free'); // its /app/api/session: 1
    const statuses: number[] = [];
    let last: Reply | undefined;
    for (let i = 0; i < 120; i++) {
      last = await call(server, 'GET', '/app/api/session', { headers: me.headers });
      statuses.push(last.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(119);
    expectBudgetSpent(last!, 120);
  }, 90_000);
});
