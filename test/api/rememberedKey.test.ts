// POST /v1/posts admits a key this process looked up before and confirms it in the insert
// itself (core/auth/rememberedKeys.ts and core/posts/draftAsKey.ts, called by api/auth.ts and createPost). What a user
// sees must be the same as with a fresh lookup: a deleted or changed key fails its very next
// request with the same status as on any route, in every process, and nothing is written.
import { describe, expect, it, vi } from 'vitest';
import { selectBrand, setBudget, setPlan } from '../../core/accounts/service.ts';
import { deleteApiKey } from '../../core/apikeys/service.ts';
import { createBrand } from '../../core/brands/service.ts';
import { call, makeAccount, makeKey, startServer } from '../support/server.ts';
import { type TestServer, useServer } from '../support/service.ts';
import { awayFromMinuteBoundary } from '../support/wait.ts';

const server = useServer();
const draft = { platform: 'mastodon', body: 'A remembered draft' };

async function keyed(plan: 'plus' | 'business' = 'plus') {
  const acct = await makeAccount(server.pool, plan);
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
  const { rows } = await server.pool.query('select id from api_keys where account_id = $1', [
    acct.accountId,
  ]);
  return { acct, key, keyId: rows[0].id as string };
}

const postCount = async (accountId: string) =>
  Number(
    (await server.pool.query('select count(*) from posts where account_id = $1', [accountId]))
      .rows[0].count,
  );

const create = (s: TestServer, key: string, body: unknown = draft) =>
  call(s, 'POST', '/v1/posts', { key, body });

describe('a remembered key on POST /v1/posts', () => {
  it('creates drafts with their audit rows, the same receipt as a looked-up key', async () => {
    const { acct, key, keyId } = await keyed();
    const first = await create(server, key); // looked up, then remembered
    const second = await create(server, key); // remembered, confirmed in the insert alone
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(Object.keys(second.body).sort()).toEqual(Object.keys(first.body).sort());
    expect(second.body).toMatchObject({ status: 'draft', body: draft.body, asset_ids: [] });
    const { rows } = await server.pool.query(
      'select actor_kind, actor_id, to_status from audit_log where post_id = $1',
      [second.body.id],
    );
    expect(rows).toEqual([{ actor_kind: 'api_key', actor_id: keyId, to_status: 'draft' }]);
    expect(await postCount(acct.accountId)).toBe(2);
  });

  it('answers a remembered key in one statement, its first stamp included', async () => {
    const { acct, key } = await keyed();
    // The statements each request runs (the budget's background flushes left out, and the
    // brand's connections, read beside the insert at most once a second for the receipt's
    // warnings: test/posts/connectionWarnings.test.ts counts those).
    const statements = async (request: () => Promise<unknown>) => {
      const spy = vi.spyOn(server.pool, 'query');
      try {
        await request();
        return spy.mock.calls
          .map(([q]) => (q as { name?: string }).name ?? 'unnamed')
          .filter((name) => name !== 'add_request_counts' && name !== 'brand_connection_statuses');
      } finally {
        spy.mockRestore();
      }
    };
    // Looked up, stamped (its first use) and remembered with the version the stamp left.
    expect(await statements(() => create(server, key))).toEqual([
      'authenticate_api_key_to_remember',
      'stamp_remembered_api_key_use',
      'read_request_count',
      'insert_post',
    ]);
    expect(await statements(() => create(server, key))).toEqual(['insert_draft_as_key']);
    // A change to the account row: one fallback, then one statement again.
    await server.pool.query('update accounts set storage_used_bytes = 1 where id = $1', [
      acct.accountId,
    ]);
    expect(await statements(() => create(server, key))).toEqual([
      'insert_draft_as_key',
      'authenticate_api_key_to_remember',
      'insert_post',
    ]);
    expect(await statements(() => create(server, key))).toEqual(['insert_draft_as_key']);
  });

  it("answers 404 for another account's brand, writing nothing", async () => {
    const { acct, key } = await keyed();
    const other = await makeAccount(server.pool, 'plus');
    expect((await create(server, key)).status).toBe(201); // remembered from here on
    const res = await create(server, key, { ...draft, brand_id: other.brandId });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found' });
    expect(await postCount(acct.accountId)).toBe(1);
    expect(await postCount(other.accountId)).toBe(0);
  });

  it('stamps the last use of a key it only remembered', async () => {
    const { key, keyId } = await keyed();
    expect((await create(server, key)).status).toBe(201);
    await server.pool.query(
      `update api_keys set last_used_at = now() - interval '2 hours' where id = $1`,
      [keyId],
    );
    // Two minutes on: this process's own once-a-minute guard has passed too.
    const later = Date.now() + 120_000;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => later);
    try {
      expect((await create(server, key)).status).toBe(201);
    } finally {
      clock.mockRestore();
    }
    const { rows } = await server.pool.query(
      `select last_used_at > now() - interval '1 minute' as recent from api_keys where id = $1`,
      [keyId],
    );
    expect(rows[0].recent).toBe(true);
  });

  it('a key deleted in another process fails the next request with 401, writing nothing', async () => {
    const second = await startServer({ db: server.db });
    try {
      // The next request after the deletion, whatever it holds: 401 before the 422 of a bad
      // body, the 404 of another brand, or the 415 of a body that is not JSON.
      for (const body of [draft, { platform: 'mastodon' }, { ...draft, brand_id: '999999' }, 'x']) {
        const { acct, key, keyId } = await keyed();
        expect((await create(server, key)).status).toBe(201);
        await deleteApiKey(second.pool, acct.accountId, keyId);
        const res =
          typeof body === 'string'
            ? await call(server, 'POST', '/v1/posts', {
                key,
                raw: body,
                headers: { 'content-type': 'text/plain' },
              })
            : await create(server, key, body);
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('unauthenticated');
        expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
        expect(res.headers.get('ratelimit-limit')).toBeNull();
        expect(await postCount(acct.accountId)).toBe(1);
      }
    } finally {
      await second.close();
    }
  });

  it('a key whose hash was replaced in its row fails the old token at once', async () => {
    const { acct, key, keyId } = await keyed();
    expect((await create(server, key)).status).toBe(201);
    await server.pool.query(`update api_keys set key_hash = sha256('another key') where id = $1`, [
      keyId,
    ]);
    expect((await create(server, key)).status).toBe(401);
    expect(await postCount(acct.accountId)).toBe(1);
  });

  it('an unrelated change to the account row costs a lookup, never the request', async () => {
    const { acct, key } = await keyed();
    expect((await create(server, key)).status).toBe(201);
    await server.pool.query('update accounts set storage_used_bytes = 1 where id = $1', [
      acct.accountId,
    ]);
    expect((await create(server, key)).status).toBe(201);
    expect((await create(server, key)).status).toBe(201);
    expect(await postCount(acct.accountId)).toBe(3);
  });

  it('a lowered plan or a scope taken away answers 403 at once', async () => {
    const { acct, key } = await keyed();
    expect((await create(server, key)).status).toBe(201);
    await setPlan(server.pool, acct.accountId, 'free');
    const refused = await create(server, key);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('plan_required');
    await setPlan(server.pool, acct.accountId, 'plus');
    expect((await create(server, key)).status).toBe(201);
    await server.pool.query(`update api_keys set scopes = '{read}' where account_id = $1`, [
      acct.accountId,
    ]);
    const noScope = await create(server, key);
    expect(noScope.status).toBe(403);
    expect(noScope.body.code).toBe('missing_scope');
    expect(await postCount(acct.accountId)).toBe(2);
  });

  it('a brand selected since is the default of the next draft', async () => {
    const { acct, key } = await keyed();
    expect((await create(server, key)).body.brand_id).toBe(acct.brandId);
    const other = await createBrand(server.pool, acct.accountId, { name: 'Second brand' });
    await selectBrand(server.pool, acct.accountId, other.id);
    expect((await create(server, key)).body.brand_id).toBe(other.id);
  });

  it('scheduled posts and bad input still answer as before on a remembered key', async () => {
    const { key } = await keyed();
    expect((await create(server, key)).status).toBe(201);
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await create(server, key, { ...draft, schedule_at: at });
    expect(scheduled.status).toBe(201);
    expect(scheduled.body.status).toBe('scheduled');
    const bad = await create(server, key, { platform: 'mastodon' });
    expect(bad.status).toBe(422);
    const elsewhere = await create(server, key, { ...draft, brand_id: '999999' });
    expect(elsewhere.status).toBe(404);
  });

  it('counts each request once against the budget, whichever path it took', async () => {
    await awayFromMinuteBoundary();
    const { acct, key, keyId } = await keyed();
    await setBudget(server.pool, acct.accountId, 4);
    const statuses = [(await create(server, key)).status, (await create(server, key)).status];
    // A key changed in place (its scopes rewritten) falls back to a fresh lookup: counted once.
    await server.pool.query(`update api_keys set scopes = '{publish,read}' where id = $1`, [keyId]);
    const fallback = await create(server, key);
    statuses.push(fallback.status);
    expect(fallback.headers.get('ratelimit-remaining')).toBe('1');
    statuses.push((await create(server, key)).status, (await create(server, key)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 429]);
    expect(await postCount(acct.accountId)).toBe(4);
  });
});
