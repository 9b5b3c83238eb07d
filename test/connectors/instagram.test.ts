// The Instagram connector through the real publication job, connection layer and Postgres,
// against a stand-in written from Meta's Instagram Platform pages
// (test/support/platforms/instagram.ts), which fetches each medium from the public address it
// is given: images, carousels and reels; a container kept across attempts; a PUBLISHED
// container recorded and never published again; ERROR and EXPIRED failing with Instagram's
// reason; a full publishing limit waited out; a token extended before it expires, a revoked
// one ending in needs_reconnect; metrics with and without the insights permission.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { publicationJob } from '../support/jobs.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { useInstagramHarness } from '../support/platforms/instagramHarness.ts';
import { META_USER } from '../support/platforms/metaGraph.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const KEY = credentialsKey(Buffer.alloc(32, 9).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
const h = useInstagramHarness(server, KEY);
let tmp: string;
let clip: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sps-instagram-'));
  clip = path.join(tmp, 'reel.mp4');
  await makeTestClip(clip, 3.5, { silent: true });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const image = async (key: string, colour: string, size = { width: 40, height: 40 }) =>
  (await uploadImage(server, key, await solidPng(size, colour))).id as string;
const reel = async (key: string) => (await uploadMediaFile(server, key, clip, 'reel.mp4')).id;

const requests = (method: string, edge: string) =>
  h.ig.received.filter((r) => r.method === method && r.path.endsWith(edge));
const containerOf = (post: { id: string }) =>
  server.pool
    .query(
      `select value from publication_steps where post_id = $1 and step = 'instagram.container'`,
      [post.id],
    )
    .then((r) => r.rows[0]?.value as string | undefined);

describe('publishing to Instagram', () => {
  it('publishes an image with its caption and alt text, fetched from its public address', async () => {
    const { key } = await h.connectBrand();
    const asset = await image(key, '#e1306c');
    await server.pool.query(`update assets set alt_text = 'A pink square' where id = $1`, [asset]);
    const post = await h.schedule(key, {
      body: 'Fresh from the oven',
      hashtags: '#bakery #bread',
      asset_ids: [asset],
    });
    expect(await h.runJob(post)).toBe('published');

    const media = h.ig.media.at(-1)!;
    const container = h.ig.containers.get(media.container)!;
    expect(container.params).toMatchObject({
      image_url: expect.stringContaining(`/public-media/${asset}?`),
      caption: 'Fresh from the oven\n\n#bakery #bread',
      alt_text: 'A pink square',
    });
    expect(h.publicMedia.fetched).toContain(asset);
    expect(await h.row(post.id)).toMatchObject({
      status: 'published',
      external_post_id: media.id,
      permalink_url: media.permalink,
    });
    expect(media.permalink).toMatch(/^https:\/\/www\.instagram\.com\/p\/\w+\/$/);
  });

  it('repeats the parameters in the address only while it stays short: a long caption goes in the body alone', async () => {
    const { key } = await h.connectBrand();
    const asset = await image(key, '#f58529');
    const caption = `Celebrations ${'🎉'.repeat(1_500)}`;
    const post = await h.schedule(key, { body: caption, asset_ids: [asset] });
    expect(await h.runJob(post)).toBe('published');
    const create = h.ig.received.findLast((r) => r.method === 'POST' && r.path.endsWith('/media'))!;
    expect(create.form.caption).toBe(caption);
    expect(create.query.caption).toBeUndefined();
    expect(create.query.image_url).toBe(create.form.image_url);
    const publish = h.ig.received.findLast((r) => r.path.endsWith('/media_publish'))!;
    expect(publish.query.creation_id).toBe(publish.form.creation_id);
  });

  it('publishes a carousel: each item a carousel item, then the carousel with the caption', async () => {
    const { key } = await h.connectBrand();
    const ids = [await image(key, '#f00'), await reel(key), await image(key, '#00f')];
    const post = await h.schedule(key, { kind: 'carousel', body: 'Three', asset_ids: ids });
    expect(await h.runJob(post)).toBe('published');

    const media = h.ig.media.at(-1)!;
    expect(media.mediaType).toBe('CAROUSEL_ALBUM');
    const parent = h.ig.containers.get(media.container)!;
    expect(parent.params).toMatchObject({ media_type: 'CAROUSEL', caption: 'Three' });
    const children = parent.children.map((id) => h.ig.containers.get(id)!);
    expect(children.map((c) => c.carouselItem)).toEqual([true, true, true]);
    expect(children.map((c) => c.mediaType)).toEqual(['IMAGE', 'VIDEO', 'IMAGE']);
    expect(children[1]!.params.video_url).toContain(`/public-media/${ids[1]}?`);
    expect(children.every((c) => c.params.caption === undefined)).toBe(true);
    expect((await h.row(post.id)).external_post_id).toBe(media.id);
  });

  it('publishes a single video as a reel once its container is FINISHED', async () => {
    const { key } = await h.connectBrand();
    h.ig.processingPolls = 3;
    try {
      const post = await h.schedule(key, { body: 'Watch', asset_ids: [await reel(key)] });
      expect(await h.runJob(post)).toBe('published');
      const media = h.ig.media.at(-1)!;
      const container = h.ig.containers.get(media.container)!;
      expect(container.params).toMatchObject({
        media_type: 'REELS',
        share_to_feed: 'true',
        caption: 'Watch',
      });
      expect(media.permalink).toMatch(/\/reel\//);
      const reads = requests('GET', `/${container.id}`).filter(
        (r) => r.query.fields === 'status_code,status',
      );
      expect(reads.length).toBeGreaterThanOrEqual(4);
    } finally {
      h.ig.processingPolls = 1;
    }
  });
});

describe('stories', () => {
  it('publishes a story: one medium as STORIES, without a caption or the feed aspect rule', async () => {
    const { key } = await h.connectBrand();
    const asset = await image(key, '#fa0', { width: 54, height: 96 });
    const post = await h.schedule(key, { kind: 'story', body: 'Not shown', asset_ids: [asset] });
    expect(await h.runJob(post)).toBe('published');
    const media = h.ig.media.at(-1)!;
    expect(media.mediaType).toBe('STORY');
    const container = h.ig.containers.get(media.container)!;
    expect(container.params).toEqual({
      media_type: 'STORIES',
      image_url: expect.stringContaining(`/public-media/${asset}?`),
    });
    expect((await h.row(post.id)).external_post_id).toBe(media.id);
  });

  it("a story published although its answer was lost is read back from the account's stories", async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, {
      kind: 'story',
      body: '',
      asset_ids: [await image(key, '#0af')],
    });
    // The story before it went out 20 s earlier: without a caption, only time tells them apart.
    for (const m of h.ig.media.filter((x) => x.mediaType === 'STORY'))
      m.timestamp = new Date(Date.parse(m.timestamp) - 20_000)
        .toISOString()
        .replace(/\.\d{3}Z$/, '+0000');
    h.ig.loseNextPublishAnswer();
    expect(await h.runJob(post)).toBe('published');
    const media = h.ig.media.at(-1)!;
    expect(media.mediaType).toBe('STORY');
    expect((await h.row(post.id)).external_post_id).toBe(media.id);
    expect(requests('GET', '/stories').length).toBeGreaterThan(0);
  });
});

describe('exactly once', () => {
  it('an attempt that ended after making the container is resumed with it by the next', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, {
      body: 'Resume me',
      asset_ids: [await image(key, '#0f0')],
    });
    const made = requests('POST', '/media').length;
    h.ig.failingStatusReads = 1;
    await expect(h.runJob(post)).rejects.toThrow(/Instagram answered 500/);
    expect((await h.row(post.id)).status).toBe('publishing');
    const container = await containerOf(post);
    expect(container).toBeDefined();

    expect(await h.runJob(post, 2)).toBe('published');
    expect(requests('POST', '/media').length).toBe(made + 1);
    expect(h.ig.media.at(-1)!.container).toBe(container);
  });

  it('a container published although its answer was lost is recorded, not published again', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, {
      body: 'Lost answer',
      asset_ids: [await image(key, '#ff0')],
    });
    const publishes = requests('POST', '/media_publish').length;
    h.ig.loseNextPublishAnswer();
    expect(await h.runJob(post)).toBe('published');
    const made = h.ig.media.filter((m) => m.caption === 'Lost answer');
    expect(made).toHaveLength(1);
    expect((await h.row(post.id)).external_post_id).toBe(made[0]!.id);
    expect(requests('POST', '/media_publish').length).toBe(publishes + 1);
  });
});

describe("the container's end", () => {
  it('ERROR fails the post quoting Instagram, with what its subcode means', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Bad video', asset_ids: [await reel(key)] });
    h.ig.failNext(2207026);
    expect(await h.runJob(post)).toBe('failed');
    expect((await h.row(post.id)).error).toBe(
      "Instagram could not prepare the post's media: Error: Media upload has failed with error code 2207026 (the video format is not supported).",
    );
    expect(
      requests('POST', '/media_publish').filter((r) => r.form.creation_id === undefined),
    ).toEqual([]);
  });

  it('EXPIRED fails the post: it was not published within 24 hours', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Too late', asset_ids: [await image(key, '#abc')] });
    h.ig.failingStatusReads = 1;
    await expect(h.runJob(post)).rejects.toThrow();
    h.ig.expire((await containerOf(post))!);
    expect(await h.runJob(post, 2)).toBe('failed');
    expect((await h.row(post.id)).error).toMatch(
      /^Instagram let the post's media container expire/,
    );
  });

  it('media Instagram could not fetch fails the post naming PUBLIC_BASE_URL', async () => {
    const { key } = await h.connectBrand();
    const asset = await image(key, '#123');
    const post = await h.schedule(key, { body: 'Unreachable', asset_ids: [asset] });
    h.publicMedia.refuse(asset);
    expect(await h.runJob(post)).toBe('failed');
    const { error } = await h.row(post.id);
    expect(error).toMatch(/^Instagram could not fetch the post's media from the service/);
    expect(error).toContain('The media could not be fetched from this URI');
    expect(error).toContain('PUBLIC_BASE_URL');
    // Instagram quoted the signed address it was given: a day's access, not shown on.
    expect(error).toContain('[the media address]');
    expect(error).not.toMatch(/https?:\/\//);
  });
});

describe("Instagram's refusals", () => {
  it('an image Instagram finds outside 4:5 to 1.91:1 fails the post quoting it', async () => {
    const { key } = await h.connectBrand();
    const asset = await image(key, '#0a0', { width: 40, height: 80 });
    // The library's record says square (a size the create-time check passes); the bytes are tall.
    await server.pool.query('update assets set width = 80, height = 80 where id = $1', [asset]);
    const post = await h.schedule(key, { body: 'Too tall', asset_ids: [asset] });
    expect(await h.runJob(post)).toBe('failed');
    expect((await h.row(post.id)).error).toBe(
      "Instagram answered 400 (code 36003): The aspect ratio is not supported. Cannot Publish Image: The submitted image with aspect ratio ('0.5/1',) cannot be published. Please submit an image with a valid aspect ratio.",
    );
    expect(h.ig.media.filter((m) => m.caption === 'Too tall')).toEqual([]);
  });
});

describe('the publishing limit', () => {
  it('a full limit reschedules the publication for when room comes, making no container', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, {
      body: 'Wait for room',
      asset_ids: [await image(key, '#456')],
    });
    const used = h.ig.media.filter((m) => m.owner === META_USER.id).length;
    h.ig.quotaTotal = used;
    const containers = h.ig.containers.size;
    try {
      expect(await h.runJob(post)).toBe('retrying');
    } finally {
      h.ig.quotaTotal = 50;
    }
    expect(h.ig.containers.size).toBe(containers);
    const row = await h.row(post.id);
    expect(row.status).toBe('publishing');
    expect(row.error).toMatch(
      new RegExp(
        `^Instagram's publishing limit for this account is reached \\(${used} of ${used} posts in 24 hours\\); the publication waits for room`,
      ),
    );
    const job = await publicationJob(server.pool, post.id);
    // Room comes when the oldest feed post of the last 24 hours leaves the window.
    const oldest = Math.min(
      ...h.ig.media
        .filter((m) => m.owner === META_USER.id && m.mediaType !== 'STORY')
        .map((m) => Date.parse(m.timestamp)),
    );
    expect(Math.abs(job!.run_at.getTime() - (oldest + 86_400_000))).toBeLessThan(5_000);
  });
});

describe('tokens', () => {
  it('a token about to expire is extended once before publishing, and the new one kept', async () => {
    const { key, connectedId, token } = await h.connectBrand({ ageS: 59 * 86_400, expiresInS: 60 });
    const refreshes = requests('GET', '/refresh_access_token').length;
    const post = await h.schedule(key, {
      body: 'Fresh token',
      asset_ids: [await image(key, '#789')],
    });
    expect(await h.runJob(post)).toBe('published');
    expect(requests('GET', '/refresh_access_token').length).toBe(refreshes + 1);
    const publish = requests('POST', '/media_publish').at(-1)!;
    expect(publish.form.access_token).toBeDefined();
    expect(publish.form.access_token).not.toBe(token);
    expect((await h.connection(connectedId)).status).toBe('active');
  });

  it('a revoked token ends in needs_reconnect and fails the post', async () => {
    const { key, connectedId } = await h.connectBrand({ ageS: 2 * 86_400 });
    const post = await h.schedule(key, { body: 'Revoked', asset_ids: [await image(key, '#987')] });
    h.ig.revoke('brand');
    expect(await h.runJob(post)).toBe('failed');
    const row = await h.row(post.id);
    expect(row.error).toMatch(/Instagram/);
    expect((await h.connection(connectedId)).status).toBe('needs_reconnect');
  });
});
