// Instagram's limits are checked when a post is made (content publishing, IG User Media):
// captions of 2,200 characters with at most 30 hashtags, images of aspect 4:5 to 1.91:1 (the
// message gives the range) and up to 8 MB, carousels of 2-10 items, one video as a reel.
import { describe, expect, it } from 'vitest';
import { type MediaFacts, platformFitIssues } from '../../core/kernel/platformFit.ts';
import type { Kind } from '../../core/kernel/platforms.ts';
import { call } from '../support/server.ts';
import { useService } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const MB = 1024 * 1024;
const image = (width: number, height: number, f: Partial<MediaFacts> = {}): MediaFacts => ({
  id: '7',
  kind: 'image',
  mime: 'image/jpeg',
  bytes: 1000,
  durationS: null,
  pixels: width * height,
  width,
  height,
  ...f,
});
const video = (f: Partial<MediaFacts> = {}): MediaFacts => ({
  id: '8',
  kind: 'video',
  mime: 'video/mp4',
  bytes: 1000,
  durationS: 10,
  pixels: null,
  ...f,
});
const issues = (
  kind: Kind,
  facts: MediaFacts[],
  body = 'Caption',
  hashtags: string | null = null,
) =>
  platformFitIssues({
    platform: 'instagram',
    kind,
    body,
    hashtags,
    media: facts.map((f) => f.kind),
    facts,
  }).map((i) => i.msg);

describe('Instagram captions', () => {
  it('take 2,200 characters and refuse 2,201', () => {
    expect(issues('image', [image(1080, 1080)], 'a'.repeat(2200))).toEqual([]);
    expect(issues('image', [image(1080, 1080)], 'a'.repeat(2201))).toEqual([
      'instagram allows 2200 characters (body and hashtags together); this post has 2201',
    ]);
  });

  it('take 30 hashtags, counted in the body and the hashtags together, and refuse 31', () => {
    const tags = (n: number, from = 0) =>
      Array.from({ length: n }, (_, i) => `#tag${i + from}`).join(' ');
    expect(issues('image', [image(1080, 1080)], `Hello ${tags(10)}`, tags(20, 10))).toEqual([]);
    expect(issues('image', [image(1080, 1080)], `Hello ${tags(10)}`, tags(21, 10))).toEqual([
      'instagram allows at most 30 hashtags in a post (body and hashtags together); this post has 31',
    ]);
  });

  it('count only hashtags: not an anchor in an address, a number, or a # inside a word', () => {
    const body = `${'#ok '.repeat(30)} see https://example.com/page#section, #1 and C#sharp`;
    expect(issues('image', [image(1080, 1080)], body)).toEqual([]);
  });

  it('are not capped on other platforms', () => {
    const body = Array.from({ length: 40 }, (_, i) => `#t${i}`).join(' ');
    expect(
      platformFitIssues({ platform: 'linkedin', kind: 'text', body, hashtags: null, media: [] }),
    ).toEqual([]);
  });
});

describe('Instagram image aspect ratios', () => {
  it('take 4:5 to 1.91:1', () => {
    expect(issues('image', [image(1080, 1350)])).toEqual([]);
    expect(issues('image', [image(1080, 1080)])).toEqual([]);
    expect(issues('image', [image(1080, 566)])).toEqual([]);
  });

  it('refuse a taller or a wider image, with the allowed range and the image own', () => {
    expect(issues('image', [image(1080, 1920)])).toEqual([
      'instagram takes images of aspect ratio 4:5 to 1.91:1 (width to height); asset 7 is 1080×1920 (0.56:1): crop it to fit',
    ]);
    expect(issues('image', [image(2000, 1000)])).toEqual([
      'instagram takes images of aspect ratio 4:5 to 1.91:1 (width to height); asset 7 is 2000×1000 (2:1): crop it to fit',
    ]);
  });

  it('hold for every image of a carousel, but not for a story or an unknown size', () => {
    expect(issues('carousel', [image(1080, 1080), image(1080, 1920, { id: '9' })])).toEqual([
      'instagram takes images of aspect ratio 4:5 to 1.91:1 (width to height); asset 9 is 1080×1920 (0.56:1): crop it to fit',
    ]);
    expect(issues('story', [image(1080, 1920)])).toEqual([]);
    expect(issues('image', [image(0, 0, { width: null, height: null })])).toEqual([]);
  });

  it('are not checked on other platforms', () => {
    expect(
      platformFitIssues({
        platform: 'threads',
        kind: 'image',
        body: 'x',
        hashtags: null,
        media: ['image'],
        facts: [image(1080, 1920)],
      }),
    ).toEqual([]);
  });
});

describe('Instagram media', () => {
  it('takes images up to 8 MB', () => {
    expect(issues('image', [image(1080, 1080, { bytes: 8 * MB })])).toEqual([]);
    expect(issues('image', [image(1080, 1080, { bytes: 9 * MB })])).toEqual([
      'an image on instagram is at most 8 MB; asset 7 has 9 MB',
    ]);
  });

  it('takes carousels of 2 to 10 images or videos', () => {
    expect(issues('carousel', [image(1080, 1080), video()])).toEqual([]);
    expect(issues('carousel', Array(10).fill(image(1080, 1080)))).toEqual([]);
    expect(issues('carousel', [image(1080, 1080)])).toEqual([
      'a carousel post on instagram needs 2 to 10 images or videos; it has 1',
    ]);
    expect(issues('carousel', Array(11).fill(image(1080, 1080)))).toEqual([
      'a carousel post on instagram needs 2 to 10 images or videos; it has 11',
    ]);
  });

  it('takes one video as a reel, of 3 s to 15 minutes', () => {
    expect(issues('video', [video()])).toEqual([]);
    expect(issues('reel', [video()])).toEqual([]);
    expect(issues('reel', [video(), video()])).toEqual([
      'a reel post on instagram needs exactly one video',
    ]);
    expect(issues('reel', [video({ durationS: 2 })])).toEqual([
      'a video on instagram lasts 3 to 900 s; asset 8 lasts 2 s',
    ]);
  });

  it('takes no post without media', () => {
    expect(
      platformFitIssues({
        platform: 'instagram',
        kind: 'text',
        body: 'Hi',
        hashtags: null,
        media: [],
      }),
    ).toEqual([
      {
        loc: ['body', 'kind'],
        msg: expect.stringMatching(/^instagram takes kind/),
        type: 'platform_capability',
      },
    ]);
  });
});

describe('through POST /v1/posts', () => {
  const service = useService({ account: { scopes: ['read', 'publish', 'media'] } });

  it('refuses a library image outside 4:5 to 1.91:1 with 422 naming the range', async () => {
    const { server, key } = service;
    const tall = await uploadImage(server, key, await solidPng({ width: 90, height: 160 }, '#0ff'));
    const square = await uploadImage(
      server,
      key,
      await solidPng({ width: 90, height: 90 }, '#f0f'),
    );
    const refused = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'instagram', body: 'Tall', asset_ids: [tall.id] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      {
        loc: ['body', 'asset_ids', 0],
        msg: `instagram takes images of aspect ratio 4:5 to 1.91:1 (width to height); asset ${tall.id} is 90×160 (0.56:1): crop it to fit`,
        type: 'platform_capability',
      },
    ]);
    const taken = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'instagram', body: 'Square', asset_ids: [square.id] },
    });
    expect(taken.status).toBe(201);
  });
});
