// REST posts: create, list, favorite, reject (SPEC.md "REST: account and posts").
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBrand } from '../../core/accounts/service.ts';
import { insertAsset } from '../../core/assets/db.ts';
import { createBrand } from '../../core/brands/service.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { type TestAccount, type TestServer, useService } from '../support/service.ts';

const svc = useService({ account: { scopes: ['read', 'publish'] } });
let server: TestServer, owner: TestAccount, key: string, readOnly: string;
let other: TestAccount, otherKey: string;

const future = (ms = 3_600_000) => new Date(Date.now() + ms).toISOString();

beforeAll(async () => {
  ({ server, acct: owner, key } = svc);
  readOnly = await makeKey(server.pool, owner.accountId, ['read']);
  other = await makeAccount(server.pool);
  otherKey = await makeKey(server.pool, other.accountId, ['read', 'publish']);
});

const create = (body: unknown, k = key) => call(server, 'POST', '/v1/posts', { key: k, body });
const list = (query = '', k = key) => call(server, 'GET', `/v1/posts${query}`, { key: k });

describe('POST /v1/posts', () => {
  it('creates a draft without a schedule and answers a 201 receipt', async () => {
    const res = await create({ platform: 'bluesky', body: 'Hello', hashtags: '#hi' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      uuid: expect.any(String),
      platform: 'bluesky',
      kind: 'text',
      status: 'draft',
      body: 'Hello',
      hashtags: '#hi',
      scheduled_for: null,
      brand_id: owner.brandId,
      asset_ids: [],
      created_at: expect.any(String),
      // The brand has no Bluesky connection: saved, with what that means (connectionWarnings).
      warnings: [expect.stringMatching(/will fail unless Bluesky is connected/)],
    });
  });

  it('schedules directly with a future schedule_at and enqueues one job for the post', async () => {
    const at = future();
    const res = await create({ platform: 'mastodon', body: 'Later', schedule_at: at });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('scheduled');
    expect(res.body.scheduled_for).toBe(at);
    const { rows } = await server.pool.query(
      'select run_at, key from graphile_worker.jobs where key = $1',
      [`publish_post:${res.body.id}`],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].run_at.toISOString()).toBe(at);
  });

  it.each([
    [
      'a past schedule_at',
      { schedule_at: new Date(Date.now() - 1000).toISOString() },
      'schedule_at',
    ],
    ['a malformed schedule_at', { schedule_at: 'tomorrow at noon' }, 'schedule_at'],
    ['a schedule_at without offset', { schedule_at: '2099-01-01T09:00:00' }, 'schedule_at'],
    ['an unknown platform', { platform: 'myspace' }, 'platform'],
    ['an unknown kind', { kind: 'poem' }, 'kind'],
    ['an unknown field', { colour: 'red' }, undefined],
  ])('refuses %s with 422 and stores nothing', async (_name, patch, field) => {
    const before = await server.pool.query('select count(*)::int as n from posts');
    const res = await create({ platform: 'bluesky', body: 'x', ...patch });
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    if (field) expect(res.body.detail.map((d: any) => d.loc.at(-1))).toContain(field);
    const after = await server.pool.query('select count(*)::int as n from posts');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('requires platform and body', async () => {
    const res = await create({});
    expect(res.status).toBe(422);
    const fields = res.body.detail.map((d: any) => d.loc.join('.'));
    expect(fields).toEqual(expect.arrayContaining(['body.platform', 'body.body']));
  });

  describe('platform capabilities', () => {
    it('refuses a Bluesky post over 300 graphemes and says so', async () => {
      const res = await create({ platform: 'bluesky', body: 'a'.repeat(301) });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].msg).toMatch(/bluesky allows 300 graphemes.*301/);
    });

    it('counts hashtags toward the length', async () => {
      const res = await create({ platform: 'x', body: 'a'.repeat(270), hashtags: '#abcdefghij' });
      expect(res.status).toBe(422);
    });

    it('counts graphemes on Bluesky, so 300 emoji fit', async () => {
      const res = await create({ platform: 'bluesky', body: '👍🏽'.repeat(300) });
      expect(res.status).toBe(201);
    });

    it('refuses a kind the platform does not take', async () => {
      const res = await create({ platform: 'instagram', body: 'words only', kind: 'text' });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'kind']);
      expect(res.body.detail[0].msg).toMatch(/instagram takes kind image, video/);
    });

    it('refuses too many images and infers kinds from media', async () => {
      const images = [];
      for (let i = 0; i < 5; i++)
        images.push(
          (
            await insertAsset(server.pool, {
              accountId: owner.accountId,
              kind: 'image',
              mime: 'image/png',
            })
          ).id,
        );
      const tooMany = await create({ platform: 'bluesky', body: 'pics', asset_ids: images });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.detail[0].msg).toMatch(/carousel|at most 4/);

      const four = await create({
        platform: 'bluesky',
        body: 'pics',
        asset_ids: images.slice(0, 4),
      });
      expect(four.status).toBe(201);
      expect(four.body.kind).toBe('image');
      expect(four.body.asset_ids).toEqual(images.slice(0, 4));

      const carousel = await create({ platform: 'instagram', body: 'pics', asset_ids: images });
      expect(carousel.status).toBe(201);
      expect(carousel.body.kind).toBe('carousel');
    });

    it('refuses a video post without a video', async () => {
      const res = await create({ platform: 'youtube', body: 'watch', kind: 'video' });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].msg).toMatch(/exactly one video/);
    });
  });

  describe('asset_ids', () => {
    it('refuses audio assets with 422', async () => {
      const audio = await insertAsset(server.pool, {
        accountId: owner.accountId,
        kind: 'audio',
        mime: 'audio/mpeg',
      });
      const res = await create({ platform: 'mastodon', body: 'listen', asset_ids: [audio.id] });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({
        loc: ['body', 'asset_ids', 0],
        msg: expect.stringMatching(/audio/),
      });
    });

    it("answers 404 for another account's asset, like a missing one", async () => {
      const theirs = await insertAsset(server.pool, {
        accountId: other.accountId,
        kind: 'image',
        mime: 'image/png',
      });
      const res = await create({ platform: 'mastodon', body: 'x', asset_ids: [theirs.id] });
      expect(res.status).toBe(404);
      const missing = await create({ platform: 'mastodon', body: 'x', asset_ids: ['999999'] });
      expect(missing.status).toBe(404);
      expect(missing.body.detail).toBe(res.body.detail.replace(theirs.id, '999999'));
    });
  });

  describe('brand', () => {
    it('defaults to the brand selected in the dashboard', async () => {
      const second = await createBrand(server.pool, owner.accountId, { name: 'Second' });
      await selectBrand(server.pool, owner.accountId, second.id);
      try {
        const res = await create({ platform: 'bluesky', body: 'for the second brand' });
        expect(res.body.brand_id).toBe(second.id);
        const explicit = await create({
          platform: 'bluesky',
          body: 'first',
          brand_id: owner.brandId,
        });
        expect(explicit.body.brand_id).toBe(owner.brandId);
      } finally {
        await selectBrand(server.pool, owner.accountId, owner.brandId);
      }
    });

    it("answers 404 for another account's brand", async () => {
      const res = await create({ platform: 'bluesky', body: 'x', brand_id: other.brandId });
      expect(res.status).toBe(404);
    });
  });

  it('needs the publish scope', async () => {
    const res = await create({ platform: 'bluesky', body: 'x' }, readOnly);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'missing_scope', required_scope: 'publish' });
  });
});

describe('GET /v1/posts', () => {
  let brandId: string;
  let listKey: string;
  beforeAll(async () => {
    // A separate account keeps these counts independent of the tests above.
    const acct = await makeAccount(server.pool);
    brandId = acct.brandId;
    listKey = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
    for (let i = 0; i < 105; i++) await create({ platform: 'x', body: `draft ${i}` }, listKey);
    await create({ platform: 'x', body: 'scheduled', schedule_at: future() }, listKey);
  });

  it('lists drafts by default, newest first, 25 rows', async () => {
    const res = await list('', listKey);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(25);
    expect(res.body[0].body).toBe('draft 104');
    expect(res.body.every((p: any) => p.status === 'draft')).toBe(true);
    expect(Number(res.body[0].id)).toBeGreaterThan(Number(res.body[1].id));
  });

  it.each([
    ['0', 1],
    ['-5', 1],
    ['1', 1],
    ['100', 100],
    ['101', 100],
    ['500', 100],
  ])('clamps limit=%s to %i', async (limit, rows) => {
    const res = await list(`?limit=${limit}`, listKey);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(rows);
  });

  it('refuses a limit that is not a number with 422', async () => {
    const res = await list('?limit=ten', listKey);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'limit']);
  });

  it('filters by status_filter and refuses an unknown status', async () => {
    const scheduled = await list('?status_filter=scheduled', listKey);
    expect(scheduled.body.map((p: any) => p.body)).toEqual(['scheduled']);
    const bad = await list('?status_filter=pending', listKey);
    expect(bad.status).toBe(422);
  });

  it('filters by brand_id, and answers 404 for a brand not owned', async () => {
    const res = await list(`?brand_id=${brandId}&limit=1`, listKey);
    expect(res.body[0].brand_id).toBe(brandId);
    const foreign = await list(`?brand_id=${other.brandId}`, listKey);
    expect(foreign.status).toBe(404);
  });

  it("never shows another account's posts", async () => {
    const res = await list('?limit=100', otherKey);
    expect(res.body).toEqual([]);
  });

  it('needs the read scope', async () => {
    const writeOnly = await makeKey(server.pool, owner.accountId, ['publish']);
    const res = await list('', writeOnly);
    expect(res.status).toBe(403);
    expect(res.body.required_scope).toBe('read');
  });
});

describe('favorite and unfavorite', () => {
  it('sets and clears favorited_at, answering the post', async () => {
    const { body: post } = await create({ platform: 'bluesky', body: 'star me' });
    const starred = await call(server, 'POST', `/v1/posts/${post.id}/favorite`, { key });
    expect(starred.status).toBe(200);
    expect(starred.body.id).toBe(post.id);
    expect(Date.parse(starred.body.favorited_at)).not.toBeNaN();
    expect(starred.body.status).toBe('draft');
    const again = await call(server, 'POST', `/v1/posts/${post.id}/favorite`, { key });
    expect(again.body.favorited_at).toBe(starred.body.favorited_at);
    const cleared = await call(server, 'DELETE', `/v1/posts/${post.id}/favorite`, { key });
    expect(cleared.status).toBe(200);
    expect(cleared.body.favorited_at).toBeNull();
  });

  it("answers 404 for another account's post and for a malformed id", async () => {
    const { body: post } = await create({ platform: 'bluesky', body: 'mine' });
    expect(
      (await call(server, 'POST', `/v1/posts/${post.id}/favorite`, { key: otherKey })).status,
    ).toBe(404);
    expect((await call(server, 'POST', '/v1/posts/abc/favorite', { key })).status).toBe(404);
    expect(
      (await call(server, 'DELETE', `/v1/posts/${post.id}/favorite`, { key: otherKey })).status,
    ).toBe(404);
  });
});

describe('POST /v1/posts/{id}/reject', () => {
  it('rejects with reason and code, answering id and status', async () => {
    const { body: post } = await create({ platform: 'bluesky', body: 'meh' });
    const res = await call(server, 'POST', `/v1/posts/${post.id}/reject`, {
      key,
      body: { reason: 'off brand', code: 'tone' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: post.id, status: 'rejected' });
    const { rows } = await server.pool.query(
      'select rejection_reason, rejection_code from posts where id = $1',
      [post.id],
    );
    expect(rows[0]).toEqual({ rejection_reason: 'off brand', rejection_code: 'tone' });
  });

  it('takes no body at all', async () => {
    const { body: post } = await create({ platform: 'bluesky', body: 'meh' });
    const res = await call(server, 'POST', `/v1/posts/${post.id}/reject`, { key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('rejected');
  });

  it('unschedules a scheduled post: its job is removed', async () => {
    const { body: post } = await create({ platform: 'bluesky', body: 'no', schedule_at: future() });
    await call(server, 'POST', `/v1/posts/${post.id}/reject`, { key });
    const { rows } = await server.pool.query('select 1 from graphile_worker.jobs where key = $1', [
      `publish_post:${post.id}`,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('refuses a published post with 409 and leaves it published', async () => {
    const { body: post } = await create({ platform: 'bluesky', body: 'done' });
    await server.pool.query(
      `update posts set status = 'published', external_post_id = '1' where id = $1`,
      [post.id],
    );
    const res = await call(server, 'POST', `/v1/posts/${post.id}/reject`, { key });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'invalid_status', status: 'published' });
    const { rows } = await server.pool.query('select status from posts where id = $1', [post.id]);
    expect(rows[0].status).toBe('published');
  });

  it("answers 404 for another account's post", async () => {
    const { body: post } = await create({ platform: 'bluesky', body: 'mine' });
    const res = await call(server, 'POST', `/v1/posts/${post.id}/reject`, { key: otherKey });
    expect(res.status).toBe(404);
  });
});
