// The side-by-side benches judge the service against the one-statement bare routes
// (bench/bareRoutes.ts), so those must do the work the service does for the same request:
// a draft with its key checked, its brand, its post row and its audit row; /me the same
// answer. A bare route doing less would make the service's overhead look larger than it is,
// and one doing more would flatter it.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { listenBare } from '../../bench/bareRoutes.ts';
import { makeAccount, makeKey, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let bare: Awaited<ReturnType<typeof listenBare>>;
beforeAll(async () => {
  server = await startServer();
  bare = await listenBare(server.pool);
});
afterAll(async () => {
  await bare.close();
  await server.close();
});

const draft = (url: string, key: string, body: string) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'mastodon', body }),
  });

/** The rows a draft left: its post and its audit rows, without what differs by nature. */
async function written(body: string) {
  const { rows: posts } = await server.pool.query(
    `select id, account_id, brand_id, platform, kind, status, hashtags, scheduled_for,
            approved_at from posts where body = $1`,
    [body],
  );
  const { rows: audit } = await server.pool.query(
    `select account_id, action, from_status, to_status, actor_kind, actor_id from audit_log
     where post_id = any($1::bigint[])`,
    [posts.map((p) => p.id)],
  );
  return { posts: posts.map(({ id: _, ...p }) => p), audit };
}

test('the bare draft writes the same post and audit row as POST /v1/posts, in one statement', async () => {
  const acct = await makeAccount(server.pool, 'business');
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
  // Twice through the service: its second draft takes the remembered key's one statement.
  for (const n of [1, 2])
    expect((await draft(`${server.baseUrl}/v1/posts`, key, `service ${n}`)).status).toBe(201);
  expect((await draft(`${bare.url}/posts`, key, 'bare')).status).toBe(201);

  const service = await written('service 2');
  const bareRows = await written('bare');
  expect(service.posts).toHaveLength(1);
  expect(service.audit).toHaveLength(1);
  expect(bareRows).toEqual(service);
  expect(bareRows.posts[0]!.brand_id).toBe(acct.brandId);
});

test('the bare draft checks the key as the service does: unknown or without publish, nothing written', async () => {
  const acct = await makeAccount(server.pool, 'business');
  const readOnly = await makeKey(server.pool, acct.accountId, ['read']);
  expect((await draft(`${server.baseUrl}/v1/posts`, readOnly, 'service read-only')).status).toBe(
    403,
  );
  expect((await draft(`${bare.url}/posts`, readOnly, 'bare read-only')).status).toBe(401);
  expect((await draft(`${bare.url}/posts`, 'sps_not_a_key', 'bare unknown')).status).toBe(401);
  for (const body of ['bare read-only', 'bare unknown'])
    expect(await written(body)).toEqual({ posts: [], audit: [] });
});

test('the bare /me answers what GET /v1/me answers', async () => {
  const acct = await makeAccount(server.pool, 'plus');
  const key = await makeKey(server.pool, acct.accountId, ['read']);
  const get = async (url: string) =>
    (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).json();
  expect(await get(`${bare.url}/me`)).toEqual(await get(`${server.baseUrl}/v1/me`));
});
