// The Canvas MCP tools (SPEC.md "MCP", Canvas), driven by the SDK's own client against a
// listening server and a real worker: create_design, get_layers, edit_layers, design_post,
// preview_design, list_design_templates, and get_post with its layout.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATES } from '../../core/templates/service.ts';
import { useDesignService } from '../support/designService.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import type { TestAccount, TestServer } from '../support/service.ts';
import { uploadPng } from '../support/uploads.ts';

const svc = useDesignService();
let server: TestServer, acct: TestAccount, key: string;
let client: Client;
const clients: Client[] = [];

async function connect(k: string) {
  const c = await connectMcp(server, k, 'canvas-test');
  clients.push(c);
  return c;
}

beforeAll(async () => {
  ({ server, acct, key } = svc);
  client = await connect(key);
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

type ToolReply = { isError?: boolean; text: string; data: any; images: any[] };
async function tool(name: string, args: Record<string, unknown>, c = client): Promise<ToolReply> {
  const res = (await c.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text?: string; data?: string; mimeType?: string }[];
    structuredContent?: unknown;
  };
  return {
    isError: res.isError,
    text: res.content.find((c) => c.type === 'text')?.text ?? '',
    data: res.structuredContent,
    images: res.content.filter((c) => c.type === 'image'),
  };
}

const newDesign = async (headline = 'Launch day') => {
  const res = await tool('create_design', {
    brand_uuid: acct.brandUuid,
    canvas: 'portrait',
    template: 'launch-big-type',
    headline,
  });
  expect(res.isError, res.text).toBeFalsy();
  return res.data;
};

describe('tool listing', () => {
  it('lists the six Canvas tools for publish, and only the reading ones for read', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of [
      'list_design_templates',
      'get_layers',
      'create_design',
      'design_post',
      'edit_layers',
      'preview_design',
    ])
      expect(names).toContain(name);
    const reader = await connect(await makeKey(server.pool, acct.accountId, ['read']));
    const readable = (await reader.listTools()).tools.map((t) => t.name);
    expect(readable).toContain('list_design_templates');
    expect(readable).toContain('get_layers');
    expect(readable).not.toContain('edit_layers');
  });
});

describe('create_design', () => {
  it('renders a design master with the headline, and no post', async () => {
    const posts = (await server.pool.query('select count(*)::int as n from posts')).rows[0].n;
    const design = await newDesign();
    expect(design).toMatchObject({ post_id: null, layout_version: 1, render_error: null });
    expect(design.layout.canvas.aspect).toBe('portrait');
    expect(design.media_paths).toHaveLength(1);
    const texts = design.layout.layers.filter((l: { kind: string }) => l.kind === 'text');
    expect(texts.map((t: { text: string }) => t.text)).toContain('Launch day');
    expect((await server.pool.query('select count(*)::int as n from posts')).rows[0].n).toBe(posts);
  });

  it('refuses a brand that is not the account’s and an unknown template', async () => {
    const other = await makeAccount(server.pool);
    expect((await tool('create_design', { brand_uuid: other.brandUuid })).text).toMatch(
      /not_found/,
    );
    expect(
      (await tool('create_design', { brand_uuid: acct.brandUuid, template: 'nope' })).text,
    ).toMatch(/unknown template/);
  });

  it('keeps premium templates for the pro plan', async () => {
    const premium = [...TEMPLATES.values()].find((t) => t.premium)!;
    expect(premium).toBeDefined();
    const refused = await tool('create_design', {
      brand_uuid: acct.brandUuid,
      template: premium.name,
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/plan_required/);
    const pro = await makeAccount(server.pool, 'pro');
    const proClient = await connect(await makeKey(server.pool, pro.accountId, ['read', 'publish']));
    const made = await tool(
      'create_design',
      { brand_uuid: pro.brandUuid, template: premium.name },
      proClient,
    );
    expect(made.isError, made.text).toBeFalsy();
  });
});

describe('get_layers and edit_layers', () => {
  it('edits in order, all or nothing, keeping every untouched cid', async () => {
    const design = await newDesign();
    const before = (await tool('get_layers', { design_id: design.design_id })).data;
    expect(before).toMatchObject({ layout_version: 1, aspect: 'portrait', width: 1080, pages: 1 });
    const text = before.layers.find((l: { kind: string }) => l.kind === 'text');
    expect(text.summary).toBe('"Launch day"');

    const edited = await tool('edit_layers', {
      design_id: design.design_id,
      layout_version: 1,
      ops: [
        { op: 'set', cid: text.cid, fields: { text: 'Launch week', color: '#0000ff' } },
        {
          op: 'add',
          layer: { kind: 'shape', shape: 'ellipse', x: 10, y: 10, w: 50, h: 50, fill: '#00ff00' },
        },
        { op: 'move', index: before.layers.length, to: 0 },
      ],
    });
    expect(edited.isError, edited.text).toBeFalsy();
    expect(edited.data).toMatchObject({ layout_version: 2, render_error: null });
    const after = (await tool('get_layers', { design_id: design.design_id })).data;
    expect(after.layers).toHaveLength(before.layers.length + 1);
    expect(after.layers[0].kind).toBe('shape');
    expect(after.layers.slice(1).map((l: { cid: string }) => l.cid)).toEqual(
      before.layers.map((l: { cid: string }) => l.cid),
    );
    expect(after.layers.find((l: { cid: string }) => l.cid === text.cid).summary).toBe(
      '"Launch week"',
    );

    // A stale version and a failing op both leave the layout as it is.
    const stale = await tool('edit_layers', {
      design_id: design.design_id,
      layout_version: 1,
      ops: [{ op: 'delete', index: 0 }],
    });
    expect(stale.isError).toBe(true);
    expect(stale.text).toMatch(/version_conflict/);
    const failing = await tool('edit_layers', {
      design_id: design.design_id,
      layout_version: 2,
      ops: [
        { op: 'delete', index: 0 },
        { op: 'delete', cid: 'does-not-exist' },
      ],
    });
    expect(failing.isError).toBe(true);
    expect(failing.text).toMatch(/ops\.1\.cid/);
    expect((await tool('get_layers', { design_id: design.design_id })).data).toEqual(after);
  });

  it('resolves asset_id to an owned image only', async () => {
    const design = await newDesign();
    const asset = { id: await uploadPng(server, key, { width: 40, height: 40 }, '#f00') };
    const image = { kind: 'image', x: 0, y: 0, w: 200, h: 200 };
    const ok = await tool('edit_layers', {
      design_id: design.design_id,
      layout_version: 1,
      ops: [{ op: 'add', layer: { ...image, asset_id: asset.id } }],
    });
    expect(ok.isError, ok.text).toBeFalsy();
    const foreign = await tool('edit_layers', {
      design_id: design.design_id,
      layout_version: 2,
      ops: [{ op: 'set', index: ok.data.layout.layers.length - 1, fields: { asset_id: '999999' } }],
    });
    expect(foreign.isError).toBe(true);
    expect(foreign.text).toMatch(/no image asset \d+ of yours/);
  });

  it('refuses more than 40 ops as invalid arguments', async () => {
    const ops = Array.from({ length: 41 }, () => ({ op: 'delete', index: 0 }));
    await expect(
      client.callTool({
        name: 'edit_layers',
        arguments: { design_id: '1', layout_version: 1, ops },
      }),
    ).rejects.toThrow(/at most 40 ops/);
  });
});

describe('design_post, get_post and preview_design on a post', () => {
  it('answers get_post of a layout over the 40 KB result cap without it, pointing to get_layers', async () => {
    const shape = (i: number) => ({ kind: 'shape', shape: 'rect', x: i, y: i, w: 40, h: 40 });
    const pages = Array.from({ length: 4 }, () => ({
      layers: Array.from({ length: 160 }, (_, i) => shape(i)),
    }));
    const created = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'bluesky', body: 'Big', brand_id: acct.brandId, layout: { pages } },
    });
    expect(created.status).toBe(201);
    // The SDK's client checks structuredContent against the tool's output schema.
    const got = await tool('get_post', { post_id: created.body.id });
    expect(got.isError, got.text).toBeFalsy();
    expect(Buffer.byteLength(got.text)).toBeLessThanOrEqual(40 * 1024);
    expect(got.data).toMatchObject({ truncated: true, omitted_fields: ['post.layout'] });
    expect(got.data.truncated_note).toMatch(/get_layers/);
    expect(got.data.post).toMatchObject({ body: 'Big', layout: null, layout_version: 1 });
    const layers = await tool('get_layers', { post_id: created.body.id });
    expect(layers.isError, layers.text).toBeFalsy();
    expect(layers.data.layout_version).toBe(1);
  });

  it('answers a refusal listing thousands of issues within the 40 KB cap, saying how many', async () => {
    const created = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'bluesky', body: 'Many', brand_id: acct.brandId, layout: { layers: [] } },
    });
    expect(created.status).toBe(201);
    // 20 pages of 160 image layers, each naming an asset that does not exist: 3,200 issues.
    const pages = Array.from({ length: 20 }, (_, p) => ({
      layers: Array.from({ length: 160 }, (_, i) => ({
        kind: 'image',
        asset_id: String(900_000_000 + p * 1000 + i),
        x: 0,
        y: 0,
        w: 100,
        h: 100,
      })),
    }));
    const res = (await client.callTool({
      name: 'design_post',
      arguments: { post_id: created.body.id, layout_version: 1, layout: { pages } },
    })) as { isError?: boolean; content: { type: string; text: string }[]; _meta?: any };
    expect(res.isError).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThanOrEqual(40 * 1024);
    const meta = res._meta;
    expect(meta).toMatchObject({ code: 'validation_failed', truncated: true, issues_total: 3200 });
    // The first issues come whole, in order, in the text and in _meta.issues alike.
    expect(meta.issues.length).toBeGreaterThan(10);
    expect(meta.issues.length).toBeLessThan(3200);
    expect(meta.issues[0]).toMatchObject({
      loc: expect.arrayContaining(['pages', 0, 'layers', 0, 'asset_id']),
      msg: expect.stringMatching(/900000000/),
    });
    const text = res.content[0]!.text;
    expect(text).toMatch(/^validation_failed: /);
    for (const issue of meta.issues) expect(text).toContain(issue.msg);
    expect(text).toContain(`${3200 - meta.issues.length} more issues not shown (3200 in all`);
  });

  it('replaces the layout of a post, shows it in get_post and previews the page', async () => {
    const created = await call(server, 'POST', '/v1/posts', {
      key,
      body: {
        platform: 'bluesky',
        body: 'Hello',
        brand_id: acct.brandId,
        layout: { layers: [{ kind: 'text', text: 'One', x: 10, y: 10, w: 300 }] },
      },
    });
    expect(created.status).toBe(201);
    const postId = created.body.id;
    const replaced = await tool('design_post', {
      post_id: postId,
      layout_version: 1,
      layout: {
        canvas: { aspect: 'square', bg: '#ff0000' },
        layers: [{ kind: 'text', text: 'Two', x: 10, y: 10, w: 300, color: '#ffffff' }],
      },
    });
    expect(replaced.isError, replaced.text).toBeFalsy();
    expect(replaced.data).toMatchObject({ post_id: postId, layout_version: 2 });

    const post = (await tool('get_post', { post_id: postId })).data.post;
    expect(post).toMatchObject({ design_id: created.body.design_id, layout_version: 2 });
    expect(post.layout.layers[0].text).toBe('Two');
    expect(post.asset_ids).toEqual(
      replaced.data.media_paths.map((p: string) => p.split('/').at(-2)),
    );

    const preview = await tool('preview_design', { post_id: postId });
    expect(preview.isError, preview.text).toBeFalsy();
    expect(preview.data).toMatchObject({ layout_version: 2, page: 0, pages: 1 });
    expect(preview.images).toHaveLength(1);
    expect(preview.images[0].mimeType).toBe('image/jpeg');
    const jpeg = sharp(Buffer.from(preview.images[0].data, 'base64'));
    expect(await jpeg.metadata()).toMatchObject({ width: 480, height: 480 });
    // The red background shows in the preview.
    const { data } = await jpeg.raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeGreaterThan(200);
    expect(data[1]).toBeLessThan(50);
    const page = await fetch(`${server.baseUrl}${new URL(preview.data.media_path).pathname}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(page.status).toBe(200);
  });
});

describe('list_design_templates', () => {
  it('pages by offset until an empty page, each template once', async () => {
    const seen: string[] = [];
    for (let offset = 0; ; ) {
      const page = await tool('list_design_templates', { offset, limit: 17 });
      expect(page.isError, page.text).toBeFalsy();
      if (!page.data.templates.length) break;
      seen.push(...page.data.templates.map((t: { name: string }) => t.name));
      offset += page.data.templates.length;
    }
    expect(seen.length).toBeGreaterThanOrEqual(40);
    expect(new Set(seen).size).toBe(seen.length);
    await expect(
      client.callTool({ name: 'list_design_templates', arguments: { limit: 51 } }),
    ).rejects.toThrow(/limit/);
  });
});
