// A post for a platform the brand cannot publish to now (no connection, or one that needs
// reconnecting) is saved all the same, and the answer says it will fail unless that platform is
// connected: REST's receipt, MCP's create_post and schedule_post, and the composer. list_accounts
// lists every platform with the brand's state on it. GraphQL's CreatePostResult is unchanged.
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
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
  return { acct, key };
}

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
        /will fail unless mastodon is connected for the brand before it is due/,
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
    expect(res.body.warnings[0]).toMatch(/will fail unless mastodon is connected again/);
  });

  it('a working connection: no warnings member, the receipt as before', async () => {
    const { key } = await brandWith('active');
    const res = await postRest(key, { platform: 'mastodon', body: 'Hi' });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('warnings');
    // Another platform of the same brand is not connected: that one warns.
    const other = await postRest(key, { platform: 'bluesky', body: 'Hi' });
    expect(other.body.warnings[0]).toMatch(/no bluesky account connected/);
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
    expect(made.warnings[0]).toMatch(/will fail unless mastodon is connected/);
    const scheduled = await tool(key, 'schedule_post', { post_id: made.post.id });
    expect(scheduled.post.status).toBe('scheduled');
    expect(scheduled.warnings[0]).toMatch(/will fail unless mastodon is connected/);
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
    expect(res.body.warnings[0]).toMatch(/will fail unless mastodon is connected/);
  });
});
