// The bearer layer shared by every interface: each auth failure of CONTRACT.md, on a real server.
import { describe, expect, it } from 'vitest';
import { bearerAuthHook } from '../../api/auth.ts';
import { setBudget, setFeature, setPlan } from '../../core/accounts/service.ts';
import { deleteApiKey } from '../../core/apikeys/service.ts';
import { call, makeAccount, makeKey, startServer } from '../support/server.ts';
import { type TestServer, useServer } from '../support/service.ts';
import { awayFromMinuteBoundary } from '../support/wait.ts';

const server = useServer({
  // Routes declaring a scope and a feature, to exercise the declared-requirement checks.
  // Test-only: no real route needs a feature yet (agent tasks and the engagement inbox are
  // not built); when one exists, this test should drive it instead.
  extend: async (app) => {
    await app.register(async (scoped) => {
      scoped.addHook('onRequest', bearerAuthHook(app.auth));
      scoped.get('/v1/test-publish', { config: { requires: { scope: 'publish' } } }, async () => ({
        ok: true,
      }));
      scoped.get(
        '/v1/test-feature',
        { config: { requires: { scope: 'read', feature: 'agent_tasks' } } },
        async () => ({ ok: true }),
      );
    });
  },
});

describe('GET /v1/me', () => {
  it('answers email, effective plan and the key scopes', async () => {
    const acct = await makeAccount(server.pool, 'pro');
    const key = await makeKey(server.pool, acct.accountId, ['read', 'media']);
    const res = await call(server, 'GET', '/v1/me', { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email: acct.email, plan: 'pro', scopes: ['read', 'media'] });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('authentication failures', () => {
  it('no credential is 401 with a Bearer challenge naming the OAuth resource metadata', async () => {
    const res = await call(server, 'GET', '/v1/me');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.config.publicBaseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(res.body.detail).toEqual(expect.any(String));
  });

  it('an unknown or malformed key is 401', async () => {
    for (const key of ['sps_0000000000000000000000000000000000000000', 'not-a-key']) {
      const res = await call(server, 'GET', '/v1/me', { key });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthenticated');
    }
  });

  it('a deleted key fails on the very next request', async () => {
    const acct = await makeAccount(server.pool);
    const key = await makeKey(server.pool, acct.accountId);
    expect((await call(server, 'GET', '/v1/me', { key })).status).toBe(200);
    const { rows } = await server.pool.query('select id from api_keys where account_id = $1', [
      acct.accountId,
    ]);
    await deleteApiKey(server.pool, acct.accountId, rows[0].id);
    expect((await call(server, 'GET', '/v1/me', { key })).status).toBe(401);
  });

  it('a free account is refused with 403 plan_required, and upgrading lets it in', async () => {
    const acct = await makeAccount(server.pool, 'free');
    const key = await makeKey(server.pool, acct.accountId);
    const res = await call(server, 'GET', '/v1/me', { key });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('plan_required');
    await setPlan(server.pool, acct.accountId, 'plus');
    expect((await call(server, 'GET', '/v1/me', { key })).status).toBe(200);
  });

  it('a missing scope is 403 missing_scope naming the scope', async () => {
    const acct = await makeAccount(server.pool);
    const key = await makeKey(server.pool, acct.accountId, ['read']);
    const res = await call(server, 'GET', '/v1/test-publish', { key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'missing_scope', required_scope: 'publish' });
    const writer = await makeKey(server.pool, acct.accountId, ['publish']);
    expect((await call(server, 'GET', '/v1/test-publish', { key: writer })).status).toBe(200);
  });

  it('a feature gate is separate from scopes: 403 feature_required until granted', async () => {
    const acct = await makeAccount(server.pool, 'business');
    const key = await makeKey(server.pool, acct.accountId, ['read', 'publish', 'generate']);
    const res = await call(server, 'GET', '/v1/test-feature', { key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'feature_required', feature: 'agent_tasks' });
    await setFeature(server.pool, acct.accountId, 'agent_tasks', true);
    expect((await call(server, 'GET', '/v1/test-feature', { key })).status).toBe(200);
  });
});

describe('request budget', () => {
  it('answers 429 with Retry-After and RateLimit headers once the minute is spent', async () => {
    const acct = await makeAccount(server.pool);
    await setBudget(server.pool, acct.accountId, 3);
    const key = await makeKey(server.pool, acct.accountId);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await call(server, 'GET', '/v1/me', { key });
      statuses.push(last.status);
    }
    // A window boundary may fall inside the loop; then the budget restarts once.
    if (statuses.at(-1) !== 429) return expect(statuses.filter((s) => s === 200).length).toBe(4);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.body.detail).toMatch(/budget/);
    expect(last!.headers.get('ratelimit-limit')).toBe('3');
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    const retry = Number(last!.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  });

  it('is one budget per account, shared by all its keys', async () => {
    await awayFromMinuteBoundary();
    const acct = await makeAccount(server.pool);
    await setBudget(server.pool, acct.accountId, 2);
    const a = await makeKey(server.pool, acct.accountId);
    const b = await makeKey(server.pool, acct.accountId);
    const statuses = [
      (await call(server, 'GET', '/v1/me', { key: a })).status,
      (await call(server, 'GET', '/v1/me', { key: b })).status,
      (await call(server, 'GET', '/v1/me', { key: a })).status,
    ];
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('is shared by every API process through Postgres', async () => {
    const second = await startServer({ db: server.db });
    // After the second process started (slow on a loaded machine): the counting must not
    // straddle a minute.
    await awayFromMinuteBoundary();
    try {
      const acct = await makeAccount(server.pool);
      await setBudget(server.pool, acct.accountId, 4);
      const key = await makeKey(server.pool, acct.accountId);
      const on = (s: TestServer) => call(s, 'GET', '/v1/me', { key });
      expect((await on(server)).status).toBe(200);
      expect((await on(server)).status).toBe(200);
      await server.app.auth.budget.flush();
      expect((await on(second)).status).toBe(200);
      const fourth = await on(second);
      expect(fourth.status).toBe(200);
      expect(fourth.headers.get('ratelimit-remaining')).toBe('0'); // second saw the first's two
      await second.app.auth.budget.flush();
      await server.app.auth.budget.flush(); // learns the second process's counts
      const fifth = await on(server);
      expect(fifth.status).toBe(429);
      await server.app.auth.budget.flush();
      const { rows } = await server.pool.query(
        'select used from request_budgets where account_id = $1',
        [acct.accountId],
      );
      expect(rows[0].used).toBe(5);
    } finally {
      await second.close();
    }
  });
});
