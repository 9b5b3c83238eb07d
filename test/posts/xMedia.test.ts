// X's media limits are checked when a post is made (x-api/media/quickstart/best-practices):
// 4 images, or 1 GIF, or 1 video; images up to 5 MB, GIFs 15 MB, video 512 MB lasting 0.5 to
// 140 s. Other platforms keep their own rules.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { type MediaFacts, platformFitIssues } from '../../core/kernel/platformFit.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { call } from '../support/server.ts';
import { useService } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const MB = 1024 * 1024;
const fact = (f: Partial<MediaFacts> & Pick<MediaFacts, 'kind'>): MediaFacts => ({
  id: '7',
  mime: f.kind === 'video' ? 'video/mp4' : 'image/png',
  bytes: 1000,
  durationS: f.kind === 'video' ? 10 : null,
  pixels: null,
  ...f,
});
const issues = (facts: MediaFacts[], platform: 'x' | 'bluesky' = 'x') =>
  platformFitIssues({
    platform,
    kind: facts.some((f) => f.kind === 'video') ? 'video' : 'image',
    body: 'Media',
    hashtags: null,
    media: facts.map((f) => f.kind),
    facts,
  }).map((i) => i.msg);

describe('X media limits at create time', () => {
  it('takes 4 images, 1 GIF or 1 video at their documented sizes', () => {
    expect(issues(Array.from({ length: 4 }, () => fact({ kind: 'image', bytes: 5 * MB })))).toEqual(
      [],
    );
    expect(issues([fact({ kind: 'image', mime: 'image/gif', bytes: 15 * MB })])).toEqual([]);
    expect(issues([fact({ kind: 'video', bytes: 512 * MB, durationS: 140 })])).toEqual([]);
    expect(issues([fact({ kind: 'video', durationS: 0.5 })])).toEqual([]);
  });

  it('refuses each size past its limit, naming the asset', () => {
    expect(issues([fact({ kind: 'image', bytes: 5 * MB + 1 })])).toEqual([
      'an image on x is at most 5 MB; asset 7 has more than 5 MB',
    ]);
    expect(issues([fact({ kind: 'image', mime: 'image/gif', bytes: 16 * MB })])).toEqual([
      'a GIF on x is at most 15 MB; asset 7 has 16 MB',
    ]);
    expect(issues([fact({ kind: 'video', bytes: 600 * MB })])).toEqual([
      'a video on x is at most 512 MB; asset 7 has 600 MB',
    ]);
  });

  it('refuses a video shorter than 0.5 s or longer than 140 s', () => {
    expect(issues([fact({ kind: 'video', durationS: 0.3 })])).toEqual([
      'a video on x lasts 0.5 to 140 s; asset 7 lasts 0.3 s',
    ]);
    expect(issues([fact({ kind: 'video', durationS: 141 })])).toEqual([
      'a video on x lasts 0.5 to 140 s; asset 7 lasts 141 s',
    ]);
  });

  it('refuses a GIF beside other images; Bluesky keeps its own rules', () => {
    const gifAndImage = [fact({ kind: 'image', mime: 'image/gif' }), fact({ kind: 'image' })];
    expect(issues(gifAndImage)).toEqual([
      'a GIF goes alone on x: 1 GIF, 1 video or up to 4 images',
    ]);
    expect(issues(gifAndImage, 'bluesky')).toEqual([]);
    expect(issues([fact({ kind: 'image', bytes: 6 * MB })], 'bluesky')).toEqual([]);
  });
});

describe('through POST /v1/posts', () => {
  const service = useService({ account: { scopes: ['read', 'publish', 'media'] } });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sps-xmedia-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a GIF with an image on X with 422, and takes the same on Bluesky', async () => {
    const { server, key } = service;
    const gifBytes = await sharp({
      create: { width: 8, height: 8, channels: 3, background: '#f0f' },
    })
      .gif()
      .toBuffer();
    const gif = await fetch(`${server.baseUrl}/v1/assets/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'image/gif' },
      body: new Uint8Array(gifBytes),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const png = await uploadImage(server, key, await solidPng({ width: 8, height: 8 }, '#0ff'));
    const body = { body: 'Mixed', asset_ids: [gif.id, png.id] };
    const onX = await call(server, 'POST', '/v1/posts', { key, body: { platform: 'x', ...body } });
    expect(onX.status).toBe(422);
    expect(onX.body.detail).toEqual([
      {
        loc: ['body', 'asset_ids'],
        msg: 'a GIF goes alone on x: 1 GIF, 1 video or up to 4 images',
        type: 'platform_capability',
      },
    ]);
    const onBluesky = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'bluesky', ...body },
    });
    expect(onBluesky.status).toBe(201);
  });

  it('refuses a video shorter than half a second on X', async () => {
    const { server, key } = service;
    const file = path.join(dir, 'short.mp4');
    await makeTestClip(file, 0.2, { silent: true });
    const clip = await uploadMediaFile(server, key, file, 'short.mp4');
    const res = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'x', body: 'Blink', asset_ids: [clip.id] },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toMatch(
      /^a video on x lasts 0\.5 to 140 s; asset \d+ lasts 0\.\d s$/,
    );
  });
});
