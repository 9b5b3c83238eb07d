// The MCP server at /mcp (SPEC.md "MCP"), driven by the SDK's own client over Streamable HTTP
// against a listening server, plus raw requests for what a client library would hide.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../api/mcp/registry.ts';
import { setFeature } from '../../core/accounts/service.ts';
import { insertAsset } from '../../core/assets/db.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import { type TestAccount, type TestServer, useService } from '../support/service.ts';

/** Lets a waiting slow_echo call go on (the test calls it once it saw what it waits for). */
let releaseSlowCall: () => void = () => {};
const slowTool = defineTool({
  name: 'slow_echo',
  title: 'Slow echo',
  description: 'Test only: reports progress, waits until released (at most `ms`), then echoes.',
  input: z.object({ text: z.string(), ms: z.number().int() }).strict(),
  output: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  run: async (ctx, args) => {
    await ctx.progress(1, 3, 'step 1');
    await new Promise<void>((resolve) => {
      releaseSlowCall = resolve;
      setTimeout(resolve, args.ms).unref();
    });
    await ctx.progress(2, 3, 'step 2');
    await ctx.progress(3, 3, 'step 3');
    return { text: args.text };
  },
});
// Test-only: no real tool is parked or gated yet (the parked video tools are not built);
// when one exists, the gate tests below should call it instead of this stand-in.
const parkedTool = defineTool({
  name: 'video_status',
  title: 'Video status',
  description: 'Test stand-in for a parked tool.',
  input: z.object({}).strict(),
  output: z.object({ ok: z.boolean() }),
  parked: true,
  annotations: { readOnlyHint: true },
  run: async () => ({ ok: true }),
});
const adminTool = defineTool({
  name: 'admin_purge',
  title: 'Admin purge',
  description: 'Test stand-in for an admin tool.',
  input: z.object({}).strict(),
  output: z.object({ ok: z.boolean() }),
  adminOnly: true,
  annotations: { destructiveHint: true },
  run: async () => ({ ok: true }),
});

const svc = useService({
  mcp: { keepAliveMs: 100, extraTools: [slowTool, parkedTool, adminTool] },
  account: { scopes: ['read', 'publish'] },
});
let server: TestServer, owner: TestAccount, writer: string, reader: string;
beforeAll(async () => {
  ({ server, acct: owner, key: writer } = svc);
  reader = await makeKey(server.pool, owner.accountId, ['read']);
});

const connect = (key: string) => connectMcp(server, key);

/** One raw JSON-RPC POST, the way SPEC.md's example sends it. */
const rpc = (body: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
  call(server, 'POST', '/mcp', {
    key: opts.key ?? writer,
    body,
    headers: { accept: 'application/json', ...opts.headers },
  });

const tool = async (client: Client, name: string, args: Record<string, unknown>) => {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(JSON.stringify(res.content));
  return res.structuredContent as any;
};

describe('transport', () => {
  it.each(['2024-11-05', '2025-03-26', '2025-06-18'])(
    'negotiates revision %s in initialize, issuing no session',
    async (version) => {
      const res = await rpc({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: version,
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.result.protocolVersion).toBe(version);
      expect(res.body.result.serverInfo.name).toBe('social-publishing-service');
      expect(res.headers.get('mcp-session-id')).toBeNull();
    },
  );

  it('answers an unknown requested revision with its newest', async () => {
    const res = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2099-01-01',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    expect(res.body.result.protocolVersion).toBe('2025-06-18');
  });

  it('refuses an unsupported MCP-Protocol-Version header with 400 and a JSON-RPC error', async () => {
    for (const version of ['2025-11-25', '1999-01-01']) {
      const res = await rpc(
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
        { headers: { 'mcp-protocol-version': version } },
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    }
  });

  it('answers a client that accepts only JSON with one JSON response', async () => {
    const res = await rpc(
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
      { headers: { 'mcp-protocol-version': '2025-06-18' } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.id).toBe(7);
    expect(res.body.result.tools.length).toBeGreaterThan(5);
  });

  it('refuses a body that is not JSON-RPC 2.0 with a JSON-RPC error', async () => {
    const res = await rpc({ hello: 'world' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('accepts a notification with 202', async () => {
    const res = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
  });

  it.each(['GET', 'DELETE'])('answers %s with 405 and Allow: POST', async (method) => {
    const res = await call(server, method, '/mcp', { key: writer });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('refuses a foreign Origin with 403', async () => {
    const res = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { headers: { origin: 'https://evil.example' } },
    );
    expect(res.status).toBe(403);
  });
});

describe('auth', () => {
  it('401 with WWW-Authenticate without a key', async () => {
    const res = await call(server, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(401);
    // The challenge names the resource metadata, where an OAuth client learns to sign in.
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.config.publicBaseUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(res.body.error.data.code).toBe('unauthenticated');
  });

  it('403 plan_required on the free plan', async () => {
    const free = await makeAccount(server.pool, 'free');
    const res = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { key: await makeKey(server.pool, free.accountId, ['read']) },
    );
    expect(res.status).toBe(403);
    expect(res.body.error.data.code).toBe('plan_required');
  });
});

describe('tools/list', () => {
  it('shows a read-only key no write tools', async () => {
    const client = await connect(reader);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['whoami', 'list_brands', 'list_posts', 'get_post', 'get_audit']),
    );
    for (const write of [
      'create_post',
      'update_post',
      'schedule_post',
      'reject_post',
      'favorite_post',
    ])
      expect(names).not.toContain(write);
    await client.close();
  });

  it('shows a publish key the write tools, never admin tools, and parked tools only with the gate', async () => {
    const client = await connect(writer);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'create_post',
        'update_post',
        'approve_post',
        'schedule_post',
        'unschedule_post',
      ]),
    );
    expect(names).not.toContain('admin_purge');
    expect(names).not.toContain('video_status');
    await client.close();

    const gated = await makeAccount(server.pool);
    await setFeature(server.pool, gated.accountId, 'parked_video', true);
    const parkedClient = await connect(await makeKey(server.pool, gated.accountId, ['read']));
    const gatedNames = (await parkedClient.listTools()).tools.map((t) => t.name);
    expect(gatedNames).toContain('video_status');
    expect(gatedNames).not.toContain('admin_purge');
    await parkedClient.close();
  });

  it('gives self-contained input schemas with descriptions, refusing unknown arguments', async () => {
    const client = await connect(writer);
    const { tools } = await client.listTools();
    for (const t of tools) {
      // Self-contained: a reference only ever points into the schema's own $defs.
      for (const [, ref] of JSON.stringify(t.inputSchema).matchAll(/"\$ref":"([^"]*)"/g))
        expect(ref).toMatch(/^#\/\$defs\//);
      expect(t.inputSchema.type).toBe('object');
      expect((t.inputSchema as any).additionalProperties).toBe(false);
      expect(t.description).toMatch(/Use this tool when you need to|Test/);
    }
    const create = tools.find((t) => t.name === 'create_post')!;
    expect((create.inputSchema.properties as any).platform.enum).toContain('mastodon');
    expect(create.inputSchema.required).toEqual(['platform', 'body']);
    expect(create.annotations).toMatchObject({ readOnlyHint: false });
    await client.close();
  });
});

describe('tools/call', () => {
  it('rejects an unknown argument, and an unknown tool, as protocol errors', async () => {
    const client = await connect(writer);
    await expect(client.callTool({ name: 'whoami', arguments: { colour: 'red' } })).rejects.toThrow(
      /colour|Unrecognized/i,
    );
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
    await expect(client.callTool({ name: 'admin_purge', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
    await client.close();
  });

  it('answers a tool failure with isError and a message', async () => {
    const client = await connect(writer);
    const res = await client.callTool({ name: 'get_post', arguments: { post_id: '999999' } });
    expect(res.isError).toBe(true);
    expect((res.content as any)[0].text).toMatch(/not_found: Post not found/);
    const scoped = await connect(reader);
    const denied = await scoped.callTool({
      name: 'create_post',
      arguments: { platform: 'x', body: 'x' },
    });
    expect(denied.isError).toBe(true);
    expect((denied.content as any)[0].text).toMatch(/missing_scope/);
    await client.close();
    await scoped.close();
  });

  it('carries the REST body’s machine-readable members in an error result’s _meta', async () => {
    const key = await makeKey(server.pool, owner.accountId, ['read', 'generate']);
    const client = await connect(key);
    const memory = await tool(client, 'get_brand_memory', {});
    const stale = await client.callTool({
      name: 'update_brand_memory',
      arguments: {
        expected_version: memory.version + 5,
        ops: [{ op: 'add', path: '/voice', value: 'dry' }],
      },
    });
    expect(stale.isError).toBe(true);
    expect((stale.content as any)[0].text).toMatch(/^version_conflict: /);
    // The current version is read, not parsed out of the message.
    expect(stale._meta).toEqual({ code: 'version_conflict', current_version: memory.version });
    expect(stale.structuredContent).toBeUndefined();

    const denied = await client.callTool({
      name: 'create_post',
      arguments: { platform: 'x', body: 'x' },
    });
    expect((denied.content as any)[0].text).toMatch(/^missing_scope: /);
    expect(denied._meta).toEqual({ code: 'missing_scope', required_scope: 'publish' });

    const missing = await client.callTool({ name: 'get_post', arguments: { post_id: '999999' } });
    expect(missing._meta).toEqual({ code: 'not_found' });
    await client.close();
  });

  it('answers whoami with JSON text and structuredContent', async () => {
    const client = await connect(reader);
    const res = await client.callTool({ name: 'whoami', arguments: {} });
    expect(res.structuredContent).toEqual({ email: owner.email, plan: 'plus', scopes: ['read'] });
    expect(JSON.parse((res.content as any)[0].text)).toEqual(res.structuredContent);
    await client.close();
  });

  it('drafts, approves, schedules, unschedules and rejects, as REST then sees', async () => {
    const client = await connect(writer);
    const { post } = await tool(client, 'create_post', { platform: 'mastodon', body: 'via MCP' });
    const rest = (id: string) =>
      call(server, 'GET', `/v1/posts?status_filter=${id}`, { key: writer });
    expect((await rest('draft')).body.map((p: any) => p.id)).toContain(post.id);

    await tool(client, 'approve_post', { post_id: post.id });
    expect((await rest('approved')).body.map((p: any) => p.id)).toContain(post.id);

    const when = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await tool(client, 'schedule_post', { post_id: post.id, when });
    expect(scheduled.post).toMatchObject({ status: 'scheduled', scheduled_for: when });
    expect((await rest('scheduled')).body.map((p: any) => p.id)).toContain(post.id);

    await tool(client, 'unschedule_post', { post_id: post.id });
    expect((await rest('approved')).body.map((p: any) => p.id)).toContain(post.id);

    const nextSlot = await tool(client, 'schedule_post', { post_id: post.id });
    expect(nextSlot.post.status).toBe('scheduled');
    expect(['09:00', '12:30', '17:00']).toContain(nextSlot.post.scheduled_for.slice(11, 16));

    const rejected = await tool(client, 'reject_post', {
      post_id: post.id,
      reason: 'tone',
      code: 'voice',
    });
    expect(rejected.post).toMatchObject({
      status: 'rejected',
      rejection: { reason: 'tone', code: 'voice' },
    });
    expect((await rest('rejected')).body.map((p: any) => p.id)).toContain(post.id);

    const edited = await tool(client, 'update_post', { post_id: post.id, body: 'better copy' });
    expect(edited.post).toMatchObject({ status: 'draft', body: 'better copy' });
    await expect(
      client.callTool({ name: 'update_post', arguments: { post_id: post.id } }),
    ).rejects.toThrow(/at least one field/);

    const starred = await tool(client, 'favorite_post', { post_id: post.id });
    expect(starred.post.favorited_at).not.toBeNull();
    expect(
      (await tool(client, 'unfavorite_post', { post_id: post.id })).post.favorited_at,
    ).toBeNull();

    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await tool(client, 'get_audit', { post_id: post.id, since: future })).entries).toEqual(
      [],
    );
    const audit = await tool(client, 'get_audit', { post_id: post.id });
    expect(audit.entries.map((e: any) => e.action)).toEqual([
      'favorite',
      'favorite',
      'update',
      'reject',
      'schedule',
      'unschedule',
      'schedule',
      'approve',
      'create',
    ]);
    const queue = await tool(client, 'get_queue_summary', {});
    expect(queue.by_status.draft).toBeGreaterThan(0);
    const usage = await tool(client, 'get_usage', {});
    expect(usage).toMatchObject({
      plan: 'plus',
      request_budget: { limit: 600 },
      storage: { used_bytes: 0, reserved_bytes: 0, quota_bytes: 10 * 1024 ** 3 },
    });
    const brands = await tool(client, 'list_brands', {});
    expect(brands.brands[0]).toMatchObject({
      id: owner.brandId,
      uuid: owner.brandUuid,
      selected: true,
    });
    expect((await tool(client, 'list_accounts', {})).accounts).toEqual([]);
    const full = await tool(client, 'get_post', { post_id: post.id });
    expect(full.post).toMatchObject({ id: post.id, brand_uuid: owner.brandUuid });
    await client.close();
  });
});

describe('library tools', () => {
  it('lists assets for read keys and deletes them only with the media scope', async () => {
    const acct = await makeAccount(server.pool);
    const asset = await insertAsset(server.pool, {
      accountId: acct.accountId,
      kind: 'image',
      mime: 'image/png',
      filename: 'a.png',
    });
    const readerClient = await connect(await makeKey(server.pool, acct.accountId, ['read']));
    const names = (await readerClient.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_assets');
    expect(names).not.toContain('delete_asset');
    const listed = await tool(readerClient, 'list_assets', {});
    expect(listed.assets.map((a: any) => a.id)).toEqual([asset.id]);
    expect(listed.storage.quota_bytes).toBeGreaterThan(0);
    await readerClient.close();
    const mediaClient = await connect(
      await makeKey(server.pool, acct.accountId, ['read', 'media']),
    );
    const png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#f00' } })
      .png()
      .toBuffer();
    const uploaded = await tool(mediaClient, 'upload_asset', {
      data_base64: png.toString('base64'),
      filename: 'dot.png',
    });
    expect(uploaded).toMatchObject({ kind: 'image', mime: 'image/png', width: 8, height: 6 });
    await expect(mediaClient.callTool({ name: 'upload_asset', arguments: {} })).rejects.toThrow(
      /exactly one/,
    );
    const bad = await mediaClient.callTool({
      name: 'upload_asset',
      arguments: { data_base64: Buffer.from('nope').toString('base64') },
    });
    expect(bad.isError).toBe(true);
    const huge = await sharp({
      create: { width: 12_000, height: 12_000, channels: 3, background: '#fff' },
    })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const tooLarge = await mediaClient.callTool({
      name: 'upload_asset',
      arguments: { data_base64: huge.toString('base64') },
    });
    expect(tooLarge.isError).toBe(true);
    expect(JSON.stringify(tooLarge.content)).toMatch(/at most 50,000,000 pixels/);
    await tool(mediaClient, 'delete_asset', { asset_id: uploaded.id });
    expect(await tool(mediaClient, 'delete_asset', { asset_id: asset.id })).toEqual({
      deleted: true,
      asset_id: asset.id,
    });
    expect((await tool(mediaClient, 'list_assets', {})).assets).toEqual([]);
    await mediaClient.close();
  });
});

describe('result size', () => {
  it('caps a whole result at 40 KB with an explicit truncated marker, never cut JSON', async () => {
    const acct = await makeAccount(server.pool);
    const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
    for (let i = 0; i < 40; i++)
      await call(server, 'POST', '/v1/posts', {
        key,
        body: { platform: 'facebook', body: `${i} ${'words '.repeat(300)}` },
      });
    const client = await connect(key);
    const res = await client.callTool({ name: 'list_posts', arguments: { limit: 100 } });
    const text = (res.content as any)[0].text as string;
    // The whole result as sent, its JSON text and the same object as structuredContent.
    expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThanOrEqual(40 * 1024);
    expect(JSON.parse(text)).toEqual(res.structuredContent);
    const parsed = JSON.parse(text);
    expect(parsed.truncated).toBe(true);
    expect(parsed.omitted).toBe(40 - parsed.posts.length);
    expect(parsed.posts.length).toBeGreaterThan(0);
    await client.close();
  });

  it('cuts one oversized text with a marker', async () => {
    const acct = await makeAccount(server.pool);
    const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
    const created = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'facebook', body: 'z'.repeat(60_000) },
    });
    const client = await connect(key);
    const res = await client.callTool({
      name: 'get_post',
      arguments: { post_id: created.body.id },
    });
    const text = (res.content as any)[0].text as string;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(40 * 1024);
    const parsed = JSON.parse(text);
    expect(parsed.truncated).toBe(true);
    expect(parsed.post.body).toMatch(/… \[truncated \d+ characters\]$/);
    await client.close();
  });
});

describe('a slow call', () => {
  it('streams keepalives and progress to a client that accepts SSE', async () => {
    const res = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${writer}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: {
          name: 'slow_echo',
          // Released once three keepalives came, however slowly; without keepalives it ends
          // after 15 s, and the count below fails.
          arguments: { text: 'hi', ms: 15_000 },
          _meta: { progressToken: 'p1' },
        },
      }),
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const keepalives = (text: string) => text.match(/: keepalive/g)?.length ?? 0;
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let stream = '';
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      stream += part.value;
      if (keepalives(stream) >= 3) releaseSlowCall();
    }
    expect(keepalives(stream)).toBeGreaterThanOrEqual(3);
    const events = stream
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(
      events.filter((e) => e.method === 'notifications/progress').map((e) => e.params.progress),
    ).toEqual([1, 2, 3]);
    expect(events.at(-1)).toMatchObject({ id: 3, result: { structuredContent: { text: 'hi' } } });
  });
});

describe('prompts', () => {
  it('lists the four shipped prompts and renders one with its arguments', async () => {
    const client = await connect(reader);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      'content_ops',
      'weekly_review',
      'repurpose_source',
      'plan_week',
    ]);
    const got = await client.getPrompt({ name: 'plan_week', arguments: { theme: 'launch week' } });
    expect((got.messages[0]!.content as any).text).toMatch(/launch week[\s\S]*schedule_post/);
    await expect(client.getPrompt({ name: 'plan_week', arguments: {} })).rejects.toThrow(/theme/);
    await client.close();
  });

  it('bounds what its arguments may hold, checks since as a date and brand_id as the caller’s', async () => {
    const client = await connect(reader);
    const huge = 'q'.repeat(100_000);
    const refused = async (name: string, args: Record<string, string>, field: RegExp) => {
      const err = await client.getPrompt({ name, arguments: args }).then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string; data?: { code?: string } },
      );
      expect(err, `${name} ${Object.keys(args)}`).toMatchObject({ code: -32602 });
      expect(err!.message).toMatch(field);
      // The refusal names the field; it does not echo the 100 KB back.
      expect(err!.message.length).toBeLessThan(2_000);
      return err!;
    };
    await refused('weekly_review', { since: huge }, /since/);
    await refused('weekly_review', { since: 'last monday' }, /since.*ISO-8601/);
    await refused('repurpose_source', { source: huge, platforms: huge }, /source/);
    await refused('repurpose_source', { source: 'x', platforms: 'bluesky,myspace' }, /platforms/);
    await refused('plan_week', { theme: huge, posts_per_day: huge }, /theme/);
    await refused('plan_week', { theme: 'x', posts_per_day: '500' }, /posts_per_day/);
    await refused('content_ops', { brand_id: huge }, /brand_id/);
    // Another account's brand answers like a missing one, as a tool's brand_id does.
    const other = await makeAccount(server.pool);
    for (const brand_id of [other.brandId, '999999999'])
      expect(await refused('content_ops', { brand_id }, /-32602: not_found: Brand/)).toMatchObject({
        data: { code: 'not_found' },
      });
    // In bounds, the caller's own brand and a date render; an empty argument is one not given.
    const ok = await client.getPrompt({
      name: 'weekly_review',
      arguments: { brand_id: owner.brandId, since: '2026-01-05', extra: '' } as never,
    });
    expect((ok.messages[0]!.content as { text: string }).text).toMatch(
      new RegExp(`brand ${owner.brandId} since 2026-01-05`),
    );
    const dated = await client.getPrompt({
      name: 'weekly_review',
      arguments: { since: '2026-01-05T09:00:00Z', brand_id: '' },
    });
    expect((dated.messages[0]!.content as { text: string }).text).toMatch(
      /the selected brand .* since 2026-01-05T09:00:00Z/,
    );
    await client.close();
  });
});
