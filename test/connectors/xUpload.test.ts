// X's chunked upload of a video through the real publication job and Postgres, against the X
// stand-in: by the path form where X serves it, by the quickstart's command form where X has no
// path form, and resumed after an interruption on the same media id without a segment sent
// twice, or started over when that id expired or X no longer knows it.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { SEGMENT_BYTES } from '../../core/connectors/x/media.ts';
import { makeHeavyClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { useXHarness, useXStandIn } from '../support/platforms/xHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY = credentialsKey(Buffer.alloc(32, 11).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
// Whatever a test sends, by either form, X's own schemas must accept (useXStandIn checks).
const x = useXStandIn();
const h = useXHarness(server, x, KEY);
let clipDir: string;
let clip: string;
/** How many segments the clip is sent in. */
let segments: number;

beforeAll(async () => {
  clipDir = mkdtempSync(path.join(os.tmpdir(), 'sps-xup-'));
  clip = path.join(clipDir, 'heavy.mp4');
  await makeHeavyClip(clip);
  segments = Math.ceil(statSync(clip).size / SEGMENT_BYTES);
});
afterAll(() => rmSync(clipDir, { recursive: true, force: true }));
afterEach(() => {
  x.uploadForms = 'path';
  x.onAppend = undefined;
  x.mediaExpiresAfterS = 86_400;
});

const sent = (line: string) => x.requests.filter((r) => `${r.method} ${r.path}` === line).length;
/** The segments X took for media `id`, in the order it took them. */
const appendedTo = (id: string) => x.appends.filter((a) => a.mediaId === id).map((a) => a.segment);
const all = () => Array.from({ length: segments }, (_, i) => i);

async function videoPost(body: string) {
  const { key } = await h.connectBrand();
  const asset = await uploadMediaFile(server, key, clip, 'heavy.mp4');
  return h.schedule(key, { body, asset_ids: [asset.id] });
}
const mediaOf = async (postId: string) => {
  const id = (await h.row(postId)).external_post_id;
  return x.tweets.find((t) => t.id === id)!.mediaIds;
};
/** Cuts the connection of the first append of segment `at`, before X takes it. */
const cutAt = (at: number) => {
  x.onAppend = (_id, segment) => {
    if (segment !== at) return undefined;
    x.onAppend = undefined;
    return 'drop';
  };
};

describe('the chunked upload by either documented form', () => {
  it('a video is sent in several segments by the path form where X serves it', async () => {
    expect(segments).toBeGreaterThanOrEqual(3);
    const post = await videoPost('Path form');
    expect(await h.runJob(post)).toBe('published');
    const [id] = await mediaOf(post.id);
    expect(appendedTo(id!)).toEqual(all());
    expect(x.appends.filter((a) => a.mediaId === id).every((a) => a.form === 'path')).toBe(true);
    expect(x.media.get(id!)).toMatchObject({ state: 'succeeded', category: 'tweet_video' });
  });

  it('a command-only X gets it by command=INIT, APPEND and FINALIZE, and the post is published', async () => {
    x.uploadForms = 'command';
    const post = await videoPost('Command form');
    const pathInits = sent('POST /2/media/upload/initialize');
    expect(await h.runJob(post)).toBe('published');
    const [id] = await mediaOf(post.id);
    // The path form was asked once, answered 404, and the upload went by the command form.
    expect(sent('POST /2/media/upload/initialize') - pathInits).toBe(1);
    expect(appendedTo(id!)).toEqual(all());
    expect(x.appends.filter((a) => a.mediaId === id).every((a) => a.form === 'command')).toBe(true);
    expect(x.media.get(id!)).toMatchObject({
      state: 'succeeded',
      category: 'tweet_video',
      mediaType: 'video/mp4',
      totalBytes: statSync(clip).size,
    });
  });

  it("X's 405 to the path form's initialize also turns the upload to the command form", async () => {
    x.uploadForms = 'both';
    x.inject({
      line: 'POST /2/media/upload/initialize',
      answer: {
        status: 405,
        body: '{"title":"Method Not Allowed","detail":"Method Not Allowed","type":"about:blank","status":405}',
      },
    });
    const post = await videoPost('After a 405');
    expect(await h.runJob(post)).toBe('published');
    const [id] = await mediaOf(post.id);
    expect(x.appends.filter((a) => a.mediaId === id).map((a) => a.form)).toEqual(
      all().map(() => 'command'),
    );
  });
});

describe('an interrupted chunked upload', () => {
  for (const form of ['path', 'command'] as const)
    it(`resumes on the same media id by the ${form} form, sending only the segments X did not take, and posts once`, async () => {
      x.uploadForms = form;
      const post = await videoPost(`Resumed (${form})`);
      const tweets = x.tweets.length;
      const media = x.media.size;
      cutAt(2);
      await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true });
      expect(await h.runJob(post, 2)).toBe('published');
      const [id] = await mediaOf(post.id);
      // One upload opened; every segment taken exactly once, in order.
      expect(x.media.size - media).toBe(1);
      expect(appendedTo(id!)).toEqual(all());
      expect(x.tweets.length - tweets).toBe(1);
    });

  it('starts over on a new media id when the one it opened is about to expire', async () => {
    // X gives this upload five minutes: too short to resume it safely.
    x.mediaExpiresAfterS = 300;
    const post = await videoPost('Near expiry');
    const before = new Set(x.media.keys());
    cutAt(2);
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true });
    const [first] = [...x.media.keys()].filter((k) => !before.has(k));
    expect(appendedTo(first!)).toEqual([0, 1]);
    expect(await h.runJob(post, 2)).toBe('published');
    const [id] = await mediaOf(post.id);
    expect(id).not.toBe(first);
    expect(appendedTo(id!)).toEqual(all());
    // The first upload is left as it was: nothing more appended, never finalized.
    expect(appendedTo(first!)).toEqual([0, 1]);
    expect(x.media.get(first!)!.state).toBe('uploading');
  });

  it('starts over on a new media id when X no longer knows the one it opened', async () => {
    x.uploadForms = 'command';
    const post = await videoPost('Forgotten');
    const before = new Set(x.media.keys());
    cutAt(3);
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true });
    const [first] = [...x.media.keys()].filter((k) => !before.has(k));
    x.media.delete(first!);
    expect(await h.runJob(post, 2)).toBe('published');
    const [id] = await mediaOf(post.id);
    expect(id).not.toBe(first);
    expect(appendedTo(first!)).toEqual([0, 1, 2]);
    expect(appendedTo(id!)).toEqual(all());
  });

  it('reuses a finalized upload as it is: STATUS is read, nothing is uploaded again', async () => {
    const post = await videoPost('Finalized once');
    const media = x.media.size;
    x.inject({
      line: 'POST /2/tweets',
      answer: { status: 503, body: '{"title":"Service Unavailable"}' },
    });
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true, status: 503 });
    const appends = x.appends.length;
    const statusReads = sent('GET /2/media/upload');
    expect(await h.runJob(post, 2)).toBe('published');
    expect(x.media.size - media).toBe(1);
    expect(x.appends.length).toBe(appends);
    expect(sent('GET /2/media/upload')).toBeGreaterThan(statusReads);
  });
});
