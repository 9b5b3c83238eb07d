// A post the brand cannot publish when it is due (a platform this version does not publish to,
// no connection, one that needs reconnecting, or one that expires first) is saved all the same,
// and the answer says it will fail: REST's receipt, MCP's create_post and schedule_post, and the
// composer, naming the platform as its users write it. list_accounts lists every platform with
// the brand's state on it. GraphQL's CreatePostResult is unchanged.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { connectMcp } from '../support/mcpClient.ts';
import {
  call,
  connectPlatform,
  makeAccount,
  makeKey,
  signedInDashboard,
  type TestAccount,
} from '../support/server.ts';
import { useServer } from '../support/service.ts';
import { uploadPng } from '../support/uploads.ts';

const server = useServer({ env: { X_CLIENT_ID: 'x-app', X_CLIENT_SECRET: 'x-secret' } });
const clients: Client[] = [];
afterAll(async () => {
  for (const c of clients) await c.close();
});

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

/** A new account (its own brand, so nothing it is remembered with is another test's). */
async function brandWith(state: 'none' | 'active' | 'needs_reconnect', platform = 'mastodon') {
  const acct = await makeAccount(server.pool);
  if (state !== 'none') {
    const c = await connectPlatform(server.pool, acct, platform as never, { handle: '@shop' });
    if (state === 'needs_reconnect')
      await server.pool.query(
        `update connected_accounts set status = 'needs_reconnect', last_error = 'revoked' where id = $1`,
        [c.id],
      );
  }
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish', 'media']);
  return { acct, key };
}

/**
 * A platform this version does not publish to yet, and what its posts need: Pinterest takes
 * pins (an image), so the post carries one of the key's account's images.
 */
const UNPUBLISHED = { platform: 'pinterest', name: 'Pinterest' } as const;
const NOT_BUILT = `Publishing to ${UNPUBLISHED.name} is not built yet: the post is saved but will fail when due.`;
const anImage = (key: string) => uploadPng(server, key, { width: 600, height: 900 }, '#c0392b');

const postRest = (key: string, body: Record<string, unknown>) =>
  call(server, 'POST', '/v1/posts', { key, body });

describe('REST: POST /v1/posts', () => {
  it('a draft and a scheduled post without a connection are saved, with a warning', async () => {
    const { acct, key } = await brandWith('none');
    for (const body of [
      { platform: 'mastodon', body: 'A draft' },
      { platform: 'mastodon', body: 'Scheduled', schedule_at: inAnHour() },
    ]) {
      const res = await postRest(key, body);
      expect(res.status).toBe(201);
      expect(res.body.warnings).toHaveLength(1);
      expect(res.body.warnings[0]).toMatch(
        /will fail unless Mastodon is connected for the brand before it is due/,
      );
    }
    const { rows } = await server.pool.query(
      'select status from posts where account_id = $1 order by id',
      [acct.accountId],
    );
    expect(rows.map((r) => r.status)).toEqual(['draft', 'scheduled']);
  });

  it('a connection that needs reconnecting warns so, naming the account', async () => {
    const { key } = await brandWith('needs_reconnect');
    const res = await postRest(key, { platform: 'mastodon', body: 'Hi', schedule_at: inAnHour() });
    expect(res.status).toBe(201);
    expect(res.body.warnings[0]).toMatch(/@shop needs reconnecting/);
    expect(res.body.warnings[0]).toMatch(/will fail unless Mastodon is connected again/);
  });

  it('a working connection: no warnings member, the receipt as before', async () => {
    const { key } = await brandWith('active');
    const res = await postRest(key, { platform: 'mastodon', body: 'Hi' });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('warnings');
    // Another platform of the same brand is not connected: that one warns.
    const other = await postRest(key, { platform: 'bluesky', body: 'Hi' });
    expect(other.body.warnings[0]).toMatch(/no Bluesky account connected/);
  });

  it('a platform this version does not publish to warns so, connected or not', async () => {
    const none = await brandWith('none');
    const connected = await brandWith('active', UNPUBLISHED.platform);
    for (const { key } of [none, connected]) {
      const res = await postRest(key, {
        platform: UNPUBLISHED.platform,
        kind: 'image',
        body: 'Hi',
        asset_ids: [await anImage(key)],
        schedule_at: inAnHour(),
      });
      expect(res.status).toBe(201);
      expect(res.body.warnings).toEqual([NOT_BUILT]);
    }
  });

  it('a connection that cannot be renewed and expires before the post is due warns so', async () => {
    const { acct, key } = await brandWith('active', 'linkedin');
    const expires = new Date(Date.now() + 2 * 86_400_000);
    await server.pool.query(
      `update connected_accounts set refreshable = false, token_expires_at = $2
       where account_id = $1`,
      [acct.accountId, expires],
    );
    const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString();
    const late = await postRest(key, { platform: 'linkedin', body: 'Hi', schedule_at: inDays(3) });
    expect(late.status).toBe(201);
    expect(late.body.warnings).toHaveLength(1);
    expect(late.body.warnings[0]).toContain(
      `The brand's LinkedIn account @shop expires at ${expires.toISOString()}, before the post is due`,
    );
    expect(late.body.warnings[0]).toMatch(/will fail unless LinkedIn is reconnected before then/);
    // Due before the expiry, or a draft: nothing to warn of.
    for (const body of [
      { platform: 'linkedin', body: 'Hi', schedule_at: inDays(1) },
      { platform: 'linkedin', body: 'Hi' },
    ])
      expect((await postRest(key, body)).body).not.toHaveProperty('warnings');
  });

  it("a failed reading of the brand's connections warns, and the receipt still comes", async () => {
    const { acct, key } = await brandWith('active');
    const query = server.pool.query.bind(server.pool);
    const spy = vi
      .spyOn(server.pool, 'query')
      .mockImplementation(((q: unknown, ...rest: never[]) =>
        (q as { name?: string }).name === 'brand_connection_statuses'
          ? Promise.reject(new Error('connection terminated'))
          : (query as (...a: unknown[]) => unknown)(q, ...rest)) as never);
    let res: Awaited<ReturnType<typeof postRest>>;
    try {
      res = await postRest(key, { platform: 'mastodon', body: 'Saved', schedule_at: inAnHour() });
    } finally {
      spy.mockRestore();
    }
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([
      expect.stringMatching(/Mastodon connection could not be checked just now: the post is saved/),
    ]);
    const { rows } = await server.pool.query('select status from posts where account_id = $1', [
      acct.accountId,
    ]);
    expect(rows).toEqual([{ status: 'scheduled' }]);
    // Not remembered: the next create reads again, and the connection is fine.
    const next = await postRest(key, { platform: 'mastodon', body: 'Again' });
    expect(next.body).not.toHaveProperty('warnings');
  });

  it("a burst of creates for one brand reads the brand's connections once", async () => {
    const { key } = await brandWith('none');
    const spy = vi.spyOn(server.pool, 'query');
    try {
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) => postRest(key, { platform: 'mastodon', body: `#${i}` })),
      );
      for (const a of answers) expect(a.body.warnings).toHaveLength(1);
      const reads = spy.mock.calls.filter(
        ([q]) => (q as { name?: string }).name === 'brand_connection_statuses',
      );
      expect(reads).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });

  it("GraphQL's CreatePostResult stays as it was", async () => {
    const { key } = await brandWith('none');
    const res = await call(server, 'POST', '/graphql', {
      key,
      body: {
        query: `mutation { createPost(input: { platform: "mastodon", body: "Hi" }) { id status } }`,
      },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createPost).toEqual({ id: expect.any(String), status: 'draft' });
    const asked = await call(server, 'POST', '/graphql', {
      key,
      body: {
        query: `mutation { createPost(input: { platform: "mastodon", body: "Hi" }) { warnings } }`,
      },
    });
    expect(asked.body.errors[0].message).toMatch(/warnings/);
  });
});

describe('MCP: create_post and schedule_post', () => {
  const tool = async (key: string, name: string, args: Record<string, unknown>) => {
    const client = await connectMcp(server, key);
    clients.push(client);
    const res = await client.callTool({ name, arguments: args });
    expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
    return res.structuredContent as any;
  };

  it('both results carry the warning when the platform is not connected', async () => {
    const { key } = await brandWith('none');
    const made = await tool(key, 'create_post', { platform: 'mastodon', body: 'Later' });
    expect(made.post.status).toBe('draft');
    expect(made.warnings[0]).toMatch(/will fail unless Mastodon is connected/);
    const scheduled = await tool(key, 'schedule_post', { post_id: made.post.id });
    expect(scheduled.post.status).toBe('scheduled');
    expect(scheduled.warnings[0]).toMatch(/will fail unless Mastodon is connected/);
  });

  it('schedule_post warns of an expiry before the time it is given', async () => {
    const { acct, key } = await brandWith('active', 'linkedin');
    await server.pool.query(
      `update connected_accounts set refreshable = false, token_expires_at = now() + interval '2 days'
       where account_id = $1`,
      [acct.accountId],
    );
    const made = await tool(key, 'create_post', { platform: 'linkedin', body: 'Later' });
    expect(made).not.toHaveProperty('warnings');
    const scheduled = await tool(key, 'schedule_post', {
      post_id: made.post.id,
      when: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    });
    expect(scheduled.warnings[0]).toMatch(/LinkedIn account @shop expires at .*cannot be renewed/);
  });

  it('create_post for a platform not published to says so', async () => {
    const { key } = await brandWith('active', UNPUBLISHED.platform);
    const made = await tool(key, 'create_post', {
      platform: UNPUBLISHED.platform,
      kind: 'image',
      body: 'Later',
      asset_ids: [await anImage(key)],
    });
    expect(made.warnings).toEqual([NOT_BUILT]);
  });

  it('and neither does with a working connection', async () => {
    const { key } = await brandWith('active');
    const made = await tool(key, 'create_post', { platform: 'mastodon', body: 'Later' });
    expect(made).not.toHaveProperty('warnings');
    const scheduled = await tool(key, 'schedule_post', { post_id: made.post.id });
    expect(scheduled).not.toHaveProperty('warnings');
  });

  it("list_accounts keeps its accounts and adds every platform's state", async () => {
    const { acct, key } = await brandWith('needs_reconnect');
    const listed = await tool(key, 'list_accounts', {});
    expect(listed.accounts).toEqual([
      expect.objectContaining({ platform: 'mastodon', handle: '@shop', status: 'needs_reconnect' }),
    ]);
    expect(listed.platforms).toHaveLength(10);
    const by = Object.fromEntries(listed.platforms.map((p: any) => [p.platform, p]));
    expect(by.mastodon).toMatchObject({
      brand_id: acct.brandId,
      state: 'needs_reconnect',
      handle: '@shop',
      last_error: 'revoked',
      connect: 'form',
    });
    expect(by.bluesky).toMatchObject({ state: 'not_connected', handle: null });
    // Which platforms this version publishes to, by their names.
    expect(listed.platforms.map((p: any) => [p.platform, p.name, p.publishes])).toEqual([
      ['bluesky', 'Bluesky', true],
      ['mastodon', 'Mastodon', true],
      ['x', 'X', true],
      ['linkedin', 'LinkedIn', true],
      ['threads', 'Threads', true],
      ['instagram', 'Instagram', true],
      ['facebook', 'Facebook', true],
      ['tiktok', 'TikTok', false],
      ['youtube', 'YouTube', false],
      ['pinterest', 'Pinterest', false],
    ]);
    // X has the operator's app here (no OAuthApp ships for it yet: the CLI connects it).
    expect(by.x).toMatchObject({ state: 'not_connected', variables: [] });
    expect(by.linkedin).toMatchObject({
      state: 'not_configured',
      variables: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'],
    });
  });

  it('list_accounts without brand_id lists each brand', async () => {
    const { acct, key } = await brandWith('none');
    const second = await server.pool.query(
      `insert into brands (account_id, name) values ($1, 'Second') returning id::text`,
      [acct.accountId],
    );
    const listed = await tool(key, 'list_accounts', {});
    expect(listed.platforms).toHaveLength(20);
    expect(new Set(listed.platforms.map((p: any) => p.brand_id))).toEqual(
      new Set([acct.brandId, second.rows[0].id]),
    );
    const one = await tool(key, 'list_accounts', { brand_id: acct.brandId });
    expect(one.platforms).toHaveLength(10);
  });
});

describe('the composer (POST /app/api/compose)', () => {
  it('answers the posts and a warning for each platform that is not connected', async () => {
    const d = await signedInDashboard(server);
    await connectPlatform(server.pool, d.acct as TestAccount, 'bluesky');
    const res = await d.send('POST', '/compose', {
      platforms: ['bluesky', 'mastodon'],
      body: 'Both',
      when: 'draft',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.posts).toHaveLength(2);
    expect(res.body.warnings).toHaveLength(1);
    expect(res.body.warnings[0]).toMatch(/will fail unless Mastodon is connected/);
  });

  it('warns of a platform it does not publish to, though connected', async () => {
    const d = await signedInDashboard(server);
    await connectPlatform(server.pool, d.acct as TestAccount, UNPUBLISHED.platform);
    const key = await makeKey(server.pool, d.acct.accountId, ['media']);
    const res = await d.send('POST', '/compose', {
      platforms: [UNPUBLISHED.platform],
      body: 'A pin',
      asset_ids: [await anImage(key)],
      when: 'draft',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.warnings).toEqual([NOT_BUILT]);
  });
});
