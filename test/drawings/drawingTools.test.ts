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

  it('get_drawing read page by page gives every stroke once, whole, in results under 40 KB', async () => {
    // Decimal coordinates as a pen's samples give them (every digit of a double), so a page of
    // 1,000 points is about 57 KB of JSON: pages are cut by size, and a 5,000-point stroke
    // (285 KB) comes in parts.
    let seed = 38;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const decimal = (n: number, sid: string) => ({
      sid,
      points: Array.from({ length: n }, () => [random() * 4096, random() * 4096, random()]),
      color: '#1a2b3c',
      size: 3.5,
    });
    const short = Array.from({ length: 150 }, (_, i) => decimal(1, `dot-${i}`));
    const long = decimal(5_000, 'long');
    const many = Array.from({ length: 120 }, (_, i) => decimal(100, `line-${i}`));
    const made = await tool('create_drawing', {
      brand_id: acct.brandId,
      // Quotes escape twice in the result's text: the widest title there is.
      title: '"'.repeat(200),
      width: 4096,
      height: 4096,
      strokes: [...short, long],
    });
    expect(made.isError, made.text).toBeFalsy();
    const added = await tool('update_drawing', {
      drawing_id: made.data.id,
      expected_version: 1,
      add_strokes: many,
    });
    expect(added.isError, added.text).toBeFalsy();
    const sent = [...short, long, ...many];

    const read: { sid: string; points: number[][] }[] = [];
    let at: { stroke_offset: number; point_offset: number } | null = {
      stroke_offset: 0,
      point_offset: 0,
    };
    let pages = 0;
    while (at) {
      const res = (await client.callTool({
        name: 'get_drawing',
        arguments: { drawing_id: made.data.id, ...at },
      })) as { isError?: boolean; content: unknown[]; structuredContent: any };
      pages++;
      expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThanOrEqual(40 * 1024);
      const page = res.structuredContent;
      expect(res.isError).toBeFalsy();
      expect(page.truncated).toBeUndefined();
      expect(page.stroke_count).toBe(sent.length);
      expect(page.point_offset).toBe(at.point_offset);
      const [first, ...rest] = page.strokes as { sid: string; points: number[][] }[];
      if (page.point_offset > 0) {
        expect(first!.sid).toBe(read.at(-1)!.sid);
        read.at(-1)!.points.push(...first!.points);
      } else if (first) read.push(first);
      read.push(...rest);
      at =
        page.next_stroke_offset === null
          ? null
          : { stroke_offset: page.next_stroke_offset, point_offset: page.next_point_offset ?? 0 };
    }
    expect(read.map((s) => s.sid)).toEqual(sent.map((s) => s.sid));
    for (const [i, stroke] of read.entries()) expect(stroke, stroke.sid).toMatchObject(sent[i]!);
    // Over 1 MB of strokes: about 16 KB a page, the long stroke in parts.
    expect(pages).toBeGreaterThan(60);
  });

  it('get_drawing refuses a point_offset past the stroke it names', async () => {
    const made = await tool('create_drawing', {
      brand_id: acct.brandId,
      title: 'Two points',
      width: 200,
      height: 200,
      strokes: [stroke(50)],
    });
    const past = await tool('get_drawing', {
      drawing_id: made.data.id,
      stroke_offset: 0,
      point_offset: 2,
    });
    expect(past.isError).toBe(true);
    expect(past.text).toMatch(/^validation_failed: point_offset: stroke 0 has 2 points/);
    const none = await tool('get_drawing', {
      drawing_id: made.data.id,
      stroke_offset: 1,
      point_offset: 1,
    });
    expect(none.isError).toBe(true);
    expect(none.text).toMatch(/there is no stroke 1/);
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
