// POST /v1/posts with a native layout (SPEC.md "Native layout rules" 1-3): the draft, its
// design and the render job commit together, the API waits for the worker's render and
// answers the rendered page's address; each refusal names what to change and stores nothing.
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Layout } from '../../core/designs/schema.ts';
import { instantiate, TEMPLATES } from '../../core/templates/service.ts';
import { useDesignService } from '../support/designService.ts';
import { call } from '../support/server.ts';
import type { TestAccount, TestServer } from '../support/service.ts';
import { uploadPng } from '../support/uploads.ts';

const svc = useDesignService();
let server: TestServer, acct: TestAccount, key: string;
beforeAll(() => ({ server, acct, key } = svc));

const create = (body: Record<string, unknown>) =>
  call(server, 'POST', '/v1/posts', {
    key,
    body: { platform: 'bluesky', body: 'Ship faster', brand_id: acct.brandId, ...body },
  });

const counts = async () =>
  (
    await server.pool.query(
      'select (select count(*) from posts)::int as posts, (select count(*) from designs)::int as designs',
    )
  ).rows[0];

describe('a post created with a template layout', () => {
  it('answers 201 with the rendered page: the template size, the headline inside its frame', async () => {
    const res = await create({
      body: 'Ship faster\nA calmer launch week',
      template: 'launch-big-type',
      layout: { canvas: { aspect: 'portrait' } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'draft',
      kind: 'image',
      render_error: null,
      layout_version: 1,
    });
    expect(res.body.media_paths).toHaveLength(1);
    expect(res.body.asset_ids).toHaveLength(1);

    const page = await fetch(`${server.baseUrl}${new URL(res.body.media_paths[0]).pathname}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(page.status).toBe(200);
    const png = PNG.sync.read(Buffer.from(await page.arrayBuffer()));
    expect([png.width, png.height]).toEqual([1080, 1350]);

    // The headline slot's frame holds dark (#111827) text pixels.
    const fill = { texts: { headline: 'x' }, images: {} };
    const frame = instantiate(
      TEMPLATES.get('launch-big-type')!,
      'portrait',
      fill,
    ).layout.layers.find((l) => l.kind === 'text' && l.slot === 'headline')! as {
      x: number;
      y: number;
      w: number;
      h: number;
    };
    let ink = 0;
    for (let y = Math.round(frame.y); y < frame.y + frame.h; y += 2)
      for (let x = Math.round(frame.x); x < frame.x + frame.w; x += 2) {
        const i = (png.width * y + x) * 4;
        if (png.data[i]! < 60 && png.data[i + 1]! < 60 && png.data[i + 2]! < 60) ink++;
      }
    expect(ink).toBeGreaterThan(500);
    const { rows } = await server.pool.query('select layout from designs where id = $1', [
      res.body.design_id,
    ]);
    const headline = Layout.parse(rows[0].layout).layers!.find(
      (l) => l.kind === 'text' && l.slot === 'headline',
    );
    // The first sentence of the copy is the headline, the rest the body.
    expect(headline).toMatchObject({ text: 'Ship faster', cid: expect.any(String) });
  });

  it('renders a layout of its own, with an owned image', async () => {
    const asset = { id: await uploadPng(server, key, { width: 60, height: 40 }, '#00ff00') };
    const res = await create({
      layout: {
        canvas: { aspect: 'landscape', bg: '#000000' },
        layers: [{ kind: 'image', asset_id: asset.id, x: 0, y: 0, w: 600, h: 675 }],
      },
    });
    expect(res.status).toBe(201);
    const page = await fetch(`${server.baseUrl}${new URL(res.body.media_paths[0]).pathname}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const png = PNG.sync.read(Buffer.from(await page.arrayBuffer()));
    const at = (x: number, y: number) => [
      ...png.data.subarray((png.width * y + x) * 4, (png.width * y + x) * 4 + 3),
    ];
    expect([png.width, png.height]).toEqual([1200, 675]);
    expect(at(300, 300)).toEqual([0, 255, 0]);
    expect(at(900, 300)).toEqual([0, 0, 0]);
  });
});

describe('native layout refusals (422, nothing stored)', () => {
  const layers = (n: number) =>
    Array.from({ length: n }, () => ({ kind: 'shape', shape: 'rect', x: 0, y: 0, w: 10, h: 10 }));
  it.each([
    ['asset_ids with a layout', { layout: {}, asset_ids: ['1'] }, ['body', 'asset_ids'], /omitted/],
    [
      'schedule_at with a layout',
      { layout: {}, schedule_at: '2099-01-01T00:00:00Z' },
      ['body', 'schedule_at'],
      /omitted/,
    ],
    ['no brand_id', { layout: {}, brand_id: undefined }, ['body', 'brand_id'], /brand/],
    [
      'a platform without image posts',
      { layout: {}, platform: 'youtube' },
      ['body', 'platform'],
      /image/,
    ],
    ['an unknown template', { template: 'nope' }, ['body', 'template'], /unknown template/],
    ['layout with design_id', { layout: {}, design_id: '1' }, ['body', 'layout'], /design_id/],
    [
      'an unknown font',
      { layout: { layers: [{ kind: 'text', text: 'x', x: 0, y: 0, w: 10, font: 'Comic' }] } },
      ['body', 'layout', 'layers', 0, 'font'],
      /available: Inter, /,
    ],
    [
      'a drawing that is not the account’s',
      { layout: { layers: [{ kind: 'drawing', drawing_id: '999999', x: 0, y: 0, w: 10, h: 10 }] } },
      ['body', 'layout', 'layers', 0, 'drawing_id'],
      /no drawing 999999 of yours/,
    ],
    [
      '161 layers',
      { layout: { layers: layers(161) } },
      ['body', 'layout', 'layers'],
      /at most 160 layers/,
    ],
    [
      '21 pages',
      { layout: { pages: Array.from({ length: 21 }, () => ({ layers: [] })) } },
      ['body', 'layout', 'pages'],
      /at most 20 pages/,
    ],
    [
      'a text layer over 5,000 characters',
      { layout: { layers: [{ kind: 'text', text: 'a'.repeat(5_001), x: 0, y: 0, w: 10 }] } },
      ['body', 'layout', 'layers', 0, 'text'],
      /at most 5,000 characters a text layer/,
    ],
    [
      'more than 20,000 characters of text in a layout, named at the layer that goes over',
      {
        layout: {
          pages: Array.from({ length: 5 }, () => ({
            layers: [{ kind: 'text', text: `${'word '.repeat(800)}!`, x: 0, y: 0, w: 900 }],
          })),
        },
        platform: 'threads',
      },
      ['body', 'layout', 'pages', 4, 'layers', 0, 'text'],
      /at most 20,000 characters of text, all pages together; with this layer it holds 20,005/,
    ],
    [
      "copy longer than a template's text slot",
      {
        platform: 'facebook',
        template: 'launch-big-type',
        body: `Headline\n${'word '.repeat(1_200)}`,
      },
      ['body', 'body'],
      /body \(5,999 characters\) is longer than a template's text slot takes \(at most 5,000\)/,
    ],
    [
      'an unknown layer kind',
      { layout: { layers: [{ kind: 'sticker', x: 0, y: 0, w: 1 }] } },
      ['body', 'layout', 'layers', 0, 'kind'],
      /./,
    ],
    [
      'a text layer without text',
      { layout: { layers: [{ kind: 'text', x: 0, y: 0, w: 1 }] } },
      ['body', 'layout', 'layers', 0, 'text'],
      /./,
    ],
  ])('refuses %s', async (_name, body, loc, msg) => {
    const before = await counts();
    const res = await create(body);
    expect(res.status).toBe(422);
    const issue = res.body.detail.find(
      (d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc),
    );
    expect(issue, JSON.stringify(res.body.detail)).toBeDefined();
    expect(issue.msg).toMatch(msg);
    expect(await counts()).toEqual(before);
  });

  it('takes 160 layers and 20 pages', async () => {
    expect((await create({ layout: { layers: layers(160) } })).status).toBe(201);
    const pages = await create({
      platform: 'threads',
      layout: { pages: Array.from({ length: 20 }, () => ({ layers: layers(1) })) },
    });
    expect(pages.status).toBe(201);
    expect(pages.body).toMatchObject({ kind: 'carousel', render_error: null });
    expect(pages.body.media_paths).toHaveLength(20);
  });
});
