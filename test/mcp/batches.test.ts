// JSON-RPC batches on /mcp: every message of a batch costs one request of
// the account's budget, a batch too big is refused, and a refused batch runs none of its calls.
import { describe, expect, it } from 'vitest';
import { MAX_BATCH } from '../../api/mcp/index.ts';
import { setBudget } from '../../core/accounts/service.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { type TestAccount, useServer } from '../support/service.ts';

const server = useServer();

const createCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'create_post', arguments: { platform: 'mastodon', body: `batch ${id}` } },
});

const batch = (key: string, n: number) =>
  call(server, 'POST', '/mcp', {
    key,
    headers: { accept: 'application/json' },
    body: Array.from({ length: n }, (_, i) => createCall(i + 1)),
  });

async function postCount(acct: TestAccount): Promise<number> {
  const { rows } = await server.pool.query<{ n: number }>(
    'select count(*)::int as n from posts where account_id = $1',
    [acct.accountId],
  );
  return rows[0]!.n;
}

async function accountWithBudget(perMinute: number) {
  const acct = await makeAccount(server.pool);
  await setBudget(server.pool, acct.accountId, perMinute);
  return { acct, key: await makeKey(server.pool, acct.accountId, ['read', 'publish']) };
}

describe('a JSON-RPC batch on /mcp', () => {
  it('costs one request of the budget per message', async () => {
    const { acct, key } = await accountWithBudget(10);
    const res = await batch(key, 3);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    expect(res.headers.get('ratelimit-remaining')).toBe('7');
    expect(await postCount(acct)).toBe(3);
  });

  it('over the budget is refused with 429 and runs none of its calls', async () => {
    const { acct, key } = await accountWithBudget(5);
    const res = await batch(key, 10);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(await postCount(acct)).toBe(0);
    // The refused calls are given back: only the request itself was spent.
    const retry = await batch(key, 4);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('ratelimit-remaining')).toBe('0');
    expect(await postCount(acct)).toBe(4);
  });

  it(`holds at most ${MAX_BATCH} messages`, async () => {
    const { acct, key } = await accountWithBudget(1000);
    const res = await batch(key, MAX_BATCH + 1);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(`at most ${MAX_BATCH}`);
    expect(await postCount(acct)).toBe(0);
  });

  it('is charged on the streaming transport too', async () => {
    const { acct, key } = await accountWithBudget(5);
    const res = await call(server, 'POST', '/mcp', {
      key,
      headers: { accept: 'application/json, text/event-stream' },
      body: Array.from({ length: 8 }, (_, i) => createCall(i + 1)),
    });
    expect(res.status).toBe(429);
    expect(await postCount(acct)).toBe(0);
  });
});
