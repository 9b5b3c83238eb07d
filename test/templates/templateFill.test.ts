// Templates filled through the API with a real render worker: slots from the request, from
// the post copy (headline the first sentence, body the rest) or removed with their
// decoration; unknown or mistyped slots refused with nothing stored; the brand kit's colours,
// fonts and logo applied, with a readable text colour chosen where a brand colour fails the
// contrast rule; a re-lay to another aspect keeping the content and its circles round; a
// photo cropped around its focal point; and text that does not fit reported in
// render_warnings through REST and MCP (preview_design).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Layout } from '../../core/designs/schema.ts';
import { contrastRatio, requiredContrast, TEMPLATES } from '../../core/templates/service.ts';
import { useDesignService } from '../support/designService.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { call, makeKey } from '../support/server.ts';
import type { TestAccount, TestServer } from '../support/service.ts';
import { uploadImage, uploadPng } from '../support/uploads.ts';

const svc = useDesignService();
let server: TestServer, acct: TestAccount, key: string, client: Client;
beforeAll(async () => {
  ({ server, acct, key } = svc);
  client = await connectMcp(server, key, 'template-fill-test');
});
afterAll(() => client.close());

const TEMPLATE = 'launch-photo-split';

const create = (body: Record<string, unknown>) =>
  call(server, 'POST', '/v1/posts', {
    key,
    body: { platform: 'bluesky', brand_id: acct.brandId, template: TEMPLATE, ...body },
  });

const layers = (layout: unknown) => Layout.parse(layout).layers ?? [];
const slotted = (layout: unknown, slot: string) => layers(layout).filter((l) => l.slot === slot);
const textOf = (layout: unknown, slot: string) =>
  slotted(layout, slot).find((l) => l.kind === 'text')?.text;

async function designOf(designId: string) {
  const { rows } = await server.pool.query('select layout from designs where id = $1', [designId]);
  return rows[0].layout;
}

const counts = async () =>
  (
    await server.pool.query(
      'select (select count(*) from posts)::int as posts, (select count(*) from designs)::int as designs',
    )
  ).rows[0];

async function setKit(visual: Record<string, unknown>) {
  const memoryKey = await makeKey(server.pool, acct.accountId, ['read', 'generate']);
  const current = await call(server, 'GET', `/v1/brand-memory?brand_id=${acct.brandId}`, {
    key: memoryKey,
  });
  const res = await call(server, 'PATCH', '/v1/brand-memory', {
    key: memoryKey,
    body: {
      brand_id: acct.brandId,
      expected_version: current.body.version,
      ops: [{ op: 'add', path: '/visual', value: visual }],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('slots', () => {
  it('fill from the request and the post copy; the rest are removed with their decoration', async () => {
    const photo = await uploadPng(server, key, { width: 400, height: 300 }, '#3366cc');
    const res = await create({
      body: 'Ship faster. Plan a week of posts in ten minutes.\nEvery network, one calendar.',
      slots: { cta: 'Try it free', photo: { asset_id: photo } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.render_error).toBeNull();
    expect(res.body.render_warnings).toEqual([]);
    const layout = await designOf(res.body.design_id);
    expect(textOf(layout, 'headline')).toBe('Ship faster.');
    expect(textOf(layout, 'body')).toBe(
      'Plan a week of posts in ten minutes.\nEvery network, one calendar.',
    );
    expect(textOf(layout, 'cta')).toBe('Try it free');
    // The CTA keeps its button; the label slot is gone, and so is the logo with its disc.
    expect(
      slotted(layout, 'cta')
        .map((l) => l.kind)
        .sort(),
    ).toEqual(['shape', 'text']);
    expect(slotted(layout, 'label')).toEqual([]);
    expect(slotted(layout, 'logo')).toEqual([]);
    expect(slotted(layout, 'photo').find((l) => l.kind === 'image')).toMatchObject({
      asset_id: photo,
      focus: 'auto',
    });
    // Only the slots' own texts are on the page: nothing of the template's samples.
    const texts = layers(layout).flatMap((l) => (l.kind === 'text' ? [l.text] : []));
    expect(texts.sort()).toEqual(
      [
        'Ship faster.',
        'Plan a week of posts in ten minutes.\nEvery network, one calendar.',
        'Try it free',
      ].sort(),
    );
  });

  it('refuses an unknown slot and a text given to an image slot, storing nothing', async () => {
    const before = await counts();
    const unknown = await create({ body: 'Hi', slots: { headlin: 'x' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'slots', 'headlin'] });
    expect(unknown.body.detail[0].msg).toMatch(/did you mean "headline"\?/);
    const mistyped = await create({ body: 'Hi', slots: { photo: 'a sunset' } });
    expect(mistyped.status).toBe(422);
    expect(mistyped.body.detail[0].msg).toMatch(/image slot/);
    const notOwned = await create({ body: 'Hi', slots: { photo: { asset_id: '999999' } } });
    expect(notOwned.status).toBe(422);
    expect(await counts()).toEqual(before);
  });

  it('null removes a slot the post copy would fill; a photo-less layout gives the copy the page', async () => {
    const res = await create({ body: 'Only a headline. Not this body.', slots: { body: null } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const layout = await designOf(res.body.design_id);
    expect(textOf(layout, 'headline')).toBe('Only a headline.');
    expect(slotted(layout, 'body')).toEqual([]);
    // Without a photo, no empty photo frame: the copy starts in the safe area's top.
    const headline = slotted(layout, 'headline')[0]!;
    expect(headline.y).toBeLessThan(400);
  });

  it('a re-lay does not carry over the text of a design laid out from a template no longer in the catalogue', async () => {
    const made = await create({ body: 'Fresh copy. From the post.' });
    await server.pool.query(
      `update designs set template = 'hiring-portrait',
         layout = jsonb_set(layout, '{layers}', (select jsonb_agg(
           case when l->>'slot' = 'cta' then l || '{"text": "Link in bio"}' else l end)
           from jsonb_array_elements(layout->'layers') l))
       where id = $1`,
      [made.body.design_id],
    );
    const res = await call(server, 'PATCH', `/v1/posts/${made.body.id}/design`, {
      key,
      body: { template: TEMPLATE },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(textOf(res.body.layout, 'headline')).toBe('Fresh copy.');
    expect(slotted(res.body.layout, 'cta')).toEqual([]);
  });

  it('create_design refuses headline together with slots.headline', async () => {
    const res = (await client.callTool({
      name: 'create_design',
      arguments: {
        brand_uuid: acct.brandUuid,
        template: TEMPLATE,
        headline: 'A',
        slots: { headline: 'B' },
      },
    })) as { isError?: boolean; content: { text: string }[] };
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/headline or slots.headline, not both/);
  });

  it('create_design takes slots over the MCP, with headline as a shorthand', async () => {
    const res = (await client.callTool({
      name: 'create_design',
      arguments: {
        brand_uuid: acct.brandUuid,
        template: TEMPLATE,
        canvas: 'story',
        headline: 'Launch day',
        slots: { label: 'New', body: 'Out now' },
      },
    })) as { isError?: boolean; structuredContent: any };
    expect(res.isError).toBeFalsy();
    const { layout } = res.structuredContent;
    expect(layout.canvas.aspect).toBe('story');
    expect(textOf(layout, 'headline')).toBe('Launch day');
    expect(textOf(layout, 'label')).toBe('New');
    expect(slotted(layout, 'label')[0]).toMatchObject({ caps: true });
    expect(slotted(layout, 'cta')).toEqual([]);
  });
});

describe('a re-lay to another aspect', () => {
  it('keeps the content and lays the template out anew: circles stay circles', async () => {
    const made = await create({
      template: 'launch-big-type',
      body: 'Big news. Details inside.',
      slots: { date: 'June 12' },
      layout: { canvas: { aspect: 'portrait' } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = await call(server, 'PATCH', `/v1/posts/${made.body.id}/design`, {
      key,
      body: { template: 'launch-big-type', layout: { canvas: { aspect: 'landscape' } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const layout = res.body.layout;
    expect(layout.canvas.aspect).toBe('landscape');
    expect(textOf(layout, 'headline')).toBe('Big news.');
    expect(textOf(layout, 'date')).toBe('June 12');
    const circles = layers(layout).filter((l) => l.kind === 'shape' && l.shape === 'ellipse');
    expect(circles.length).toBeGreaterThan(0);
    for (const c of circles) expect(c.w).toBeCloseTo(c.h ?? -1, 1);

    // A canvas alone (no layers, no template) lays the design's own template out on it.
    const story = await call(server, 'PATCH', `/v1/posts/${made.body.id}/design`, {
      key,
      body: { layout: { canvas: { aspect: 'story' } } },
    });
    expect(story.status, JSON.stringify(story.body)).toBe(200);
    expect(story.body.template).toBe('launch-big-type');
    expect(story.body.layout.canvas.aspect).toBe('story');
    expect(textOf(story.body.layout, 'headline')).toBe('Big news.');
    expect(textOf(story.body.layout, 'date')).toBe('June 12');
  });
});

describe('the post copy', () => {
  it("fills the slot a template names for it: a job card's role", async () => {
    const res = await create({ template: 'hiring-card', body: 'Staff Engineer. Remote.' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(textOf(await designOf(res.body.design_id), 'role')).toBe('Staff Engineer.');
  });
});

describe('the brand kit', () => {
  it("styles the template with the brand's colours, fonts and logo; unreadable text gets a readable colour", async () => {
    const logo = await uploadPng(server, key, { width: 64, height: 64 }, '#ff00ff');
    // The text colour equals the background: the contrast rule must pick another.
    await setKit({
      colors: [
        { hex: '#e11d48', role: 'primary' },
        { hex: '#0b1020', role: 'background' },
        { hex: '#0b1020', role: 'text' },
      ],
      fonts: ['Lora', 'No Such Font'],
      logo_asset_id: logo,
    });
    const res = await create({ body: 'Kit day. With our own colours.', slots: { cta: 'Go' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const layout = Layout.parse(await designOf(res.body.design_id));
    expect(layout.canvas.bg).toBe('#0b1020');
    const button = slotted(layout, 'cta').find((l) => l.kind === 'shape')!;
    expect(button).toMatchObject({ fill: '#e11d48' });
    expect(slotted(layout, 'logo').find((l) => l.kind === 'image')).toMatchObject({
      asset_id: logo,
    });
    for (const l of layers(layout)) {
      if (l.kind !== 'text') continue;
      expect(l.font).toBe('Lora');
      if (l.slot === 'headline' || l.slot === 'body') {
        expect(l.color).not.toBe('#0b1020');
        expect(contrastRatio(l.color, '#0b1020')).toBeGreaterThanOrEqual(
          requiredContrast(l.min_size ?? l.size, l.weight === 'bold', 1080),
        );
      }
    }
    // The page shows the brand's background.
    const page = await fetch(`${server.baseUrl}${new URL(res.body.media_paths[0]).pathname}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const png = PNG.sync.read(Buffer.from(await page.arrayBuffer()));
    const i = (png.width * (png.height - 5) + 5) * 4;
    expect([png.data[i], png.data[i + 1], png.data[i + 2]]).toEqual([0x0b, 0x10, 0x20]);
    await setKit({});
  });
});

describe('a photo slot', () => {
  it('is cropped around the focal point attention finds', async () => {
    // A wide photo: grey, with a bright red disc near its right edge.
    const sharp = (await import('sharp')).default;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="400"><rect width="1600" height="400" fill="#777777"/><circle cx="1450" cy="200" r="120" fill="#ff0000"/></svg>`;
    const bytes = await sharp(Buffer.from(svg)).png().toBuffer();
    const photo = (await uploadImage(server, key, bytes)).id;
    const res = await create({
      body: 'Focus. Where the subject is.',
      slots: { photo: { asset_id: photo } },
      layout: { canvas: { aspect: 'story' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const page = await fetch(`${server.baseUrl}${new URL(res.body.media_paths[0]).pathname}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const png = PNG.sync.read(Buffer.from(await page.arrayBuffer()));
    // The photo frame is the top half, full width: a centre crop would show only grey.
    let red = 0;
    for (let y = 0; y < 900; y += 10)
      for (let x = 0; x < png.width; x += 10) {
        const i = (png.width * y + x) * 4;
        if (png.data[i]! > 200 && png.data[i + 1]! < 60) red++;
      }
    expect(red).toBeGreaterThan(100);
  });
});

describe('a photo slot filled with a video frame', () => {
  it("shows the video's frame at frame_s; a video without frame_s is refused", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'frame-slot-'));
    try {
      await makeTestClip(path.join(dir, 'clip.mp4'), 2, { silent: true });
      const video = await uploadMediaFile(server, key, path.join(dir, 'clip.mp4'), 'clip.mp4');
      const refused = await create({ body: 'Frame', slots: { photo: { asset_id: video.id } } });
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'slots', 'photo', 'asset_id'] });
      expect(JSON.stringify(refused.body.detail)).toMatch(/is a video; this takes an image/);
      const late = await create({
        body: 'Frame',
        slots: { photo: { asset_id: video.id, frame_s: 5 } },
      });
      expect(late.status).toBe(422);
      expect(late.body.detail[0]).toMatchObject({
        loc: ['body', 'slots', 'photo', 'frame_s'],
        msg: 'the video is 2 s long; frame_s must be less than that',
      });

      const res = await create({
        body: 'Frame. From the clip.',
        slots: { photo: { asset_id: video.id, frame_s: 1 } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.render_error).toBeNull();
      const page = await fetch(`${server.baseUrl}${new URL(res.body.media_paths[0]).pathname}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const png = PNG.sync.read(Buffer.from(await page.arrayBuffer()));
      // The test pattern's colour bars fill the photo frame (the top half): many colours, where
      // the empty frame would be one.
      const colours = new Set<string>();
      for (let y = 150; y < 600; y += 15)
        for (let x = 0; x < png.width; x += 15) {
          const i = (png.width * y + x) * 4;
          colours.add(`${png.data[i]! >> 5},${png.data[i + 1]! >> 5},${png.data[i + 2]! >> 5}`);
        }
      expect(colours.size).toBeGreaterThan(6);

      // Each distinct frame is an ffmpeg run over the video: a layout draws at most ten.
      const frames = Array.from({ length: 11 }, (_, i) => ({
        kind: 'image',
        asset_id: video.id,
        frame_s: i / 10,
        x: i * 10,
        y: 0,
        w: 10,
        h: 10,
      }));
      const many = await call(server, 'POST', '/v1/posts', {
        key,
        body: {
          platform: 'bluesky',
          body: 'Frames',
          brand_id: acct.brandId,
          layout: { layers: frames },
        },
      });
      expect(many.status).toBe(422);
      expect(many.body.detail[0]).toMatchObject({
        loc: ['body', 'layout', 'layers', 10, 'frame_s'],
        type: 'too_many_frames',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('render_warnings', () => {
  it('name an image deleted since the layout was saved, left out of the render', async () => {
    const photo = await uploadPng(server, key, { width: 300, height: 200 }, '#aa3355');
    const made = await create({ body: 'Gone. Soon.', slots: { photo: { asset_id: photo } } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const gone = await call(server, 'DELETE', `/v1/assets/${photo}`, { key });
    expect(gone.status).toBe(204);
    const again = await call(server, 'PATCH', `/v1/posts/${made.body.id}/design`, {
      key,
      body: {},
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.render_error).toBeNull();
    expect(again.body.render_warnings).toEqual([
      expect.objectContaining({ code: 'image_missing', page: 0 }),
    ]);
  });

  it('name the text that did not fit, through REST and preview_design', async () => {
    const res = await call(server, 'POST', '/v1/posts', {
      key,
      body: {
        platform: 'bluesky',
        body: 'Too long',
        brand_id: acct.brandId,
        layout: {
          layers: [
            {
              kind: 'text',
              cid: 'title',
              x: 100,
              y: 100,
              w: 400,
              h: 120,
              size: 80,
              min_size: 80,
              fit: 'shrink',
              text: 'A headline far too long for its small frame at this size',
            },
          ],
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.render_error).toBeNull();
    expect(res.body.media_paths).toHaveLength(1);
    expect(res.body.render_warnings).toEqual([
      {
        code: 'text_overflow',
        cid: 'title',
        page: 0,
        message: expect.stringMatching(/does not fit its frame even at its min_size/),
      },
    ]);
    const preview = (await client.callTool({
      name: 'preview_design',
      arguments: { post_id: res.body.id },
    })) as { structuredContent: any };
    expect(preview.structuredContent.render_warnings).toEqual(res.body.render_warnings);
  });
});

it('every template named in these tests exists', () => {
  expect(TEMPLATES.has(TEMPLATE)).toBe(true);
  expect(TEMPLATES.has('launch-big-type')).toBe(true);
});
