// A `drawing` layer in a Canvas design, rendered by the worker: the drawing scaled into the
// layer's frame with its aspect kept, its strokes where their points put them; another
// account's drawing refused at the layer, storing nothing; a drawing changed later shows on
// the design's pages only once they are rendered again.
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CreateDrawingInput, UpdateDrawingInput } from '../../core/drawings/schema.ts';
import { createDrawing, updateDrawing } from '../../core/drawings/service.ts';
import { useDesignService } from '../support/designService.ts';
import { call, makeAccount } from '../support/server.ts';
import type { TestAccount, TestServer } from '../support/service.ts';

const svc = useDesignService();
let server: TestServer, acct: TestAccount, key: string;
beforeAll(() => ({ server, acct, key } = svc));

const callerOf = (a: TestAccount) =>
  ({
    accountId: a.accountId,
    selectedBrandId: a.brandId,
    credential: { kind: 'api_key', id: '1' },
  }) as never;

/** A 200×100 drawing: one thick red stroke along its middle, from left to right. */
const redLine = (a: TestAccount) =>
  createDrawing(
    server.pool,
    callerOf(a),
    CreateDrawingInput.parse({
      title: 'Underline',
      width: 200,
      height: 100,
      strokes: [
        {
          points: Array.from({ length: 30 }, (_, i) => [10 + (180 * i) / 29, 50]),
          color: '#ff0000',
          size: 20,
        },
      ],
    }),
  );

const post = (layers: unknown[]) =>
  call(server, 'POST', '/v1/posts', {
    key,
    body: { platform: 'bluesky', body: 'Drawn', brand_id: acct.brandId, layout: { layers } },
  });

async function page(res: { body: { media_paths: string[] } }) {
  const got = await fetch(`${server.baseUrl}${new URL(res.body.media_paths[0]!).pathname}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return PNG.sync.read(Buffer.from(await got.arrayBuffer()));
}
const rgb = (img: PNG, x: number, y: number) => {
  const i = (img.width * y + x) * 4;
  return [img.data[i], img.data[i + 1], img.data[i + 2]];
};

describe('a drawing layer', () => {
  it('draws the drawing scaled into its frame, aspect kept, and nothing outside it', async () => {
    const drawing = await redLine(acct);
    // A 400×400 frame at (100, 100): the 2:1 drawing fills its width, 200 tall, centred.
    const res = await post([
      { kind: 'drawing', cid: 'd', drawing_id: drawing.id, x: 100, y: 100, w: 400, h: 400 },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.render_error).toBeNull();
    expect(res.body.render_warnings).toEqual([]);
    const img = await page(res);
    // The stroke's middle: the frame's centre, red.
    expect(rgb(img, 300, 300)).toEqual([255, 0, 0]);
    // Above and below the scaled stroke (40 px thick at 2×), and outside the frame: white.
    expect(rgb(img, 300, 250)).toEqual([255, 255, 255]);
    expect(rgb(img, 300, 350)).toEqual([255, 255, 255]);
    expect(rgb(img, 90, 300)).toEqual([255, 255, 255]);
    expect(rgb(img, 510, 300)).toEqual([255, 255, 255]);
  });

  it("refuses another account's drawing at the layer, storing nothing", async () => {
    const other = await makeAccount(server.pool);
    const theirs = await redLine(other);
    const before = await server.pool.query('select count(*)::int as n from posts');
    const res = await post([
      { kind: 'drawing', drawing_id: theirs.id, x: 0, y: 0, w: 100, h: 100 },
    ]);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ['body', 'layout', 'layers', 0, 'drawing_id'],
      msg: `no drawing ${theirs.id} of yours`,
    });
    const after = await server.pool.query('select count(*)::int as n from posts');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('shows a later change of the drawing only when the design renders again', async () => {
    const drawing = await redLine(acct);
    const res = await post([
      { kind: 'drawing', drawing_id: drawing.id, x: 100, y: 100, w: 400, h: 400 },
    ]);
    expect(rgb(await page(res), 300, 300)).toEqual([255, 0, 0]);
    await updateDrawing(
      server.pool,
      callerOf(acct),
      UpdateDrawingInput.parse({
        drawing_id: drawing.id,
        expected_version: 1,
        strokes: [{ points: [[100, 50]], color: '#0000ff', size: 1 }],
      }),
    );
    // The post still shows its rendered page.
    expect(rgb(await page(res), 300, 300)).toEqual([255, 0, 0]);
    const again = await call(server, 'PATCH', `/v1/posts/${res.body.id}/design`, { key, body: {} });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const redrawn = await page({ body: { media_paths: again.body.media_paths } });
    expect(rgb(redrawn, 200, 300)).toEqual([255, 255, 255]);
  });
});
