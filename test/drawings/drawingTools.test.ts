// The drawing tools over MCP, driven by the SDK's client against a listening server with a
// render worker: create_drawing, get_drawing, list_drawings, update_drawing (version checked)
// and delete_drawing (refused while a design shows the drawing, unless force); another
// account's drawing not found by any of them; the tools listed by scope.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDesignService } from '../support/designService.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';
import type { TestAccount, TestServer } from '../support/service.ts';

const svc = useDesignService();
let server: TestServer, acct: TestAccount, key: string;
const clients: Client[] = [];
let client: Client;
beforeAll(async () => {
  ({ server, acct, key } = svc);
  client = await connectMcp(server, key, 'drawing-tools-test');
  clients.push(client);
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

type Reply = { isError?: boolean; text: string; data: any };
async function tool(name: string, args: Record<string, unknown>, c = client): Promise<Reply> {
  const res = (await c.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text?: string }[];
    structuredContent?: unknown;
  };
  return {
    isError: res.isError,
    text: res.content.find((x) => x.type === 'text')?.text ?? '',
    data: res.structuredContent,
  };
}

const stroke = (y: number, sid?: string) => ({
  ...(sid ? { sid } : {}),
  points: [
    [10, y, 0.5],
    [190, y, 0.9],
  ],
  color: '#ff0000',
  size: 12,
});

describe('the drawing tools', () => {
  it('create, get, list and update under expected_version', async () => {
    const made = await tool('create_drawing', {
      brand_id: acct.brandId,
      title: 'Arrow',
      width: 200,
      height: 100,
      background: '#ffffff',
      strokes: [stroke(50, 'first')],
    });
    expect(made.isError, made.text).toBeFalsy();
    expect(made.data).toMatchObject({ title: 'Arrow', version: 1, background: '#ffffff' });
    const id = made.data.id;

    const got = await tool('get_drawing', { drawing_id: id });
    expect(got.data.strokes).toEqual([
      expect.objectContaining({ sid: 'first', color: '#ff0000', tool: 'pen' }),
    ]);
    const listed = await tool('list_drawings', { brand_id: acct.brandId });
    expect(listed.data.drawings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id, stroke_count: 1, point_count: 2, version: 1 }),
      ]),
    );

    const next = await tool('update_drawing', {
      drawing_id: id,
      expected_version: 1,
      add_strokes: [stroke(80, 'second')],
    });
    expect(next.isError, next.text).toBeFalsy();
    expect(next.data.version).toBe(2);
    expect(next.data.strokes.map((s: { sid: string }) => s.sid)).toEqual(['first', 'second']);
    // What an update does not name stays as it was.
    expect(next.data).toMatchObject({ title: 'Arrow', background: '#ffffff' });

    const stale = await tool('update_drawing', { drawing_id: id, expected_version: 1, title: 'x' });
    expect(stale.isError).toBe(true);
    expect(stale.text).toMatch(/version_conflict|stale/);
    expect((await tool('get_drawing', { drawing_id: id })).data).toMatchObject({
      version: 2,
      title: 'Arrow',
    });
  });

  it('get_drawing pages a long drawing: at most 1,000 points a page, a longer stroke alone', async () => {
    const long = (n: number, sid: string) => ({
      sid,
      points: Array.from({ length: n }, (_, i) => [i % 200, Math.floor(i / 200)]),
      color: '#000000',
      size: 4,
    });
    const made = await tool('create_drawing', {
      brand_id: acct.brandId,
      title: 'Long',
      width: 200,
      height: 200,
      strokes: [long(600, 'a'), long(300, 'b'), long(500, 'c'), long(1500, 'd')],
    });
    const sids = async (offset: number) => {
      const page = await tool('get_drawing', { drawing_id: made.data.id, stroke_offset: offset });
      expect(page.isError, page.text).toBeFalsy();
      expect(page.data.stroke_count).toBe(4);
      return [page.data.strokes.map((s: { sid: string }) => s.sid), page.data.next_stroke_offset];
    };
    expect(await sids(0)).toEqual([['a', 'b', 'c'], 3]);
    expect(await sids(3)).toEqual([['d'], null]);
    expect(await sids(4)).toEqual([[], null]);
  });

  it('delete_drawing is refused while a design shows the drawing, unless force', async () => {
    const made = await tool('create_drawing', {
      brand_id: acct.brandId,
      title: 'Sign',
      width: 100,
      height: 100,
      strokes: [stroke(50)],
    });
    const post = await call(server, 'POST', '/v1/posts', {
      key,
      body: {
        platform: 'bluesky',
        body: 'Signed',
        brand_id: acct.brandId,
        layout: {
          layers: [{ kind: 'drawing', drawing_id: made.data.id, x: 0, y: 0, w: 300, h: 300 }],
        },
      },
    });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    const refused = await tool('delete_drawing', { drawing_id: made.data.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(new RegExp(`drawing_in_use|Design\\(s\\) ${post.body.design_id}`));
    expect((await tool('get_drawing', { drawing_id: made.data.id })).isError).toBeFalsy();

    const forced = await tool('delete_drawing', { drawing_id: made.data.id, force: true });
    expect(forced.isError, forced.text).toBeFalsy();
    expect(forced.data).toEqual({
      drawing_id: made.data.id,
      deleted: true,
      designs: [post.body.design_id],
    });
    expect((await tool('get_drawing', { drawing_id: made.data.id })).isError).toBe(true);
    // The design renders again without it, and says so.
    const again = await call(server, 'PATCH', `/v1/posts/${post.body.id}/design`, {
      key,
      body: {},
    });
    expect(again.body.render_warnings).toEqual([
      expect.objectContaining({ code: 'image_missing' }),
    ]);
  });

  it("answers not found for another account's drawing, by every tool", async () => {
    const other = await makeAccount(server.pool);
    const theirKey = await makeKey(server.pool, other.accountId, ['read', 'media']);
    const theirs = await connectMcp(server, theirKey, 'drawing-tools-other');
    clients.push(theirs);
    const made = await tool(
      'create_drawing',
      { brand_id: other.brandId, title: 'Theirs', width: 10, height: 10 },
      theirs,
    );
    expect(made.isError, made.text).toBeFalsy();
    for (const [name, args] of [
      ['get_drawing', { drawing_id: made.data.id }],
      ['update_drawing', { drawing_id: made.data.id, expected_version: 1, title: 'x' }],
      ['delete_drawing', { drawing_id: made.data.id, force: true }],
    ] as const) {
      const res = await tool(name, args);
      expect(res.isError, name).toBe(true);
      expect(res.text, name).toMatch(/not found/i);
    }
    const listed = await tool('list_drawings', {});
    expect(listed.data.drawings.map((d: { id: string }) => d.id)).not.toContain(made.data.id);
  });

  it('are listed by scope: a read key sees list and get only', async () => {
    const readKey = await makeKey(server.pool, acct.accountId, ['read']);
    const reader = await connectMcp(server, readKey, 'drawing-tools-reader');
    clients.push(reader);
    const names = (await reader.listTools()).tools
      .map((t) => t.name)
      .filter((n) => n.includes('drawing'));
    expect(names.sort()).toEqual(['get_drawing', 'list_drawings']);
  });
});
