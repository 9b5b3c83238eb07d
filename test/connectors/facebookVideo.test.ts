// Facebook Page videos by the Resumable Upload API through the real publication job, against
// the Facebook stand-in: the session opened with the user token (or the Page token of a CLI
// connection), a lost answer read back, a killed worker resumed, the older phases as fallback.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { publishNow } from '../support/jobs.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import {
  FACEBOOK_PAGE,
  useFacebookHarness,
  useFacebookStandIn,
} from '../support/platforms/facebookHarness.ts';
import { META_APP } from '../support/platforms/metaOauth.ts';
import { exitSignal } from '../support/platforms/publishCrash.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY_BASE64 = Buffer.alloc(32, 7).toString('base64');
const PAGE = FACEBOOK_PAGE;

const server = useServer({ env: LOOPBACK_OUTBOUND });
const fb = useFacebookStandIn();
const h = useFacebookHarness(server, fb, KEY_BASE64);
let tmp: string;
let clip: Buffer;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sps-facebook-video-'));
  await makeTestClip(path.join(tmp, 'clip.mp4'), 2);
  clip = readFileSync(path.join(tmp, 'clip.mp4'));
}, 60_000);
afterEach(() => {
  fb.resumableUploads = true;
  fb.loseNextAnswer = false;
  fb.onUpload = undefined;
  fb.takeOnlyNextUpload = undefined;
  fb.answerNextUpload = undefined;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A brand connected to the Page: from the dashboard (with the user token) or the CLI (Page token only). */
const connectedPage = (how: 'dashboard' | 'cli' = 'dashboard') => h.connectPage(how);

/** A video post of the clip, scheduled. */
async function videoPost(key: string, body: string) {
  const asset = await uploadMediaFile(server, key, path.join(tmp, 'clip.mp4'), 'clip.mp4');
  const { id } = await h.schedule(key, { body, asset_ids: [asset.id] });
  return { id, assetId: asset.id };
}

const postRow = (id: string) => h.row(id);

/**
 * One run of the publication job, as the worker runs it (attempt `n` of 5); `withAppId` false:
 * the service has no FACEBOOK_CLIENT_ID.
 */
async function publish(id: string, n = 1, withAppId = true) {
  const post = { id, at: (await postRow(id)).scheduled_for.toISOString() };
  return withAppId ? h.runJob(post, n) : h.runJobWithoutAppId(post, n);
}

const since = (n: number) => fb.received.slice(n);
const isOpen = (r: { method: string; path: string }) =>
  r.method === 'POST' && r.path === `/v25.0/${META_APP.id}/uploads`;
const isUpload = (r: { path: string }) => r.path.startsWith('/v25.0/upload:');
const isPublish = (r: { method: string; path: string; form: Record<string, string> }) =>
  r.method === 'POST' &&
  r.path === `/v25.0/${PAGE}/videos` &&
  r.form.fbuploader_video_file_chunk !== undefined;
const isOlderPhase = (r: { path: string; raw: Buffer }) =>
  r.path === `/v25.0/${PAGE}/videos` && r.raw.includes('upload_phase');
/** The last upload session the stand-in opened. */
const lastUpload = () => [...fb.uploads.values()].at(-1)!;

describe('a video by the Resumable Upload API', () => {
  it("opens a session with the user token, sends the bytes, and publishes the handle on the Page with the Page's token", async () => {
    const { key, userToken, pageToken } = await connectedPage();
    const { id, assetId } = await videoPost(key, 'Our documented video');
    const from = fb.received.length;
    expect(await publish(id), (await postRow(id)).error).toBe('published');
    const calls = since(from);
    const open = calls.filter(isOpen);
    expect(open).toHaveLength(1);
    expect(open[0]!.query).toMatchObject({
      file_name: `${assetId}.mp4`,
      file_length: String(clip.length),
      file_type: 'video/mp4',
    });
    expect(open[0]!.headers.authorization).toBe(`OAuth ${userToken}`);
    const uploads = calls.filter(isUpload);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.headers).toMatchObject({
      authorization: `OAuth ${userToken}`,
      file_offset: '0',
    });
    const up = lastUpload();
    expect(up.bytes.equals(clip)).toBe(true);
    const published = calls.filter(isPublish);
    expect(published).toHaveLength(1);
    expect(published[0]!.headers.authorization).toBe(`Bearer ${pageToken}`);
    expect(published[0]!.form).toMatchObject({
      fbuploader_video_file_chunk: up.handle,
      description: 'Our documented video',
    });
    expect(calls.some(isOlderPhase)).toBe(false);
    const video = fb.videos.get(up.usedBy!)!;
    expect(video).toMatchObject({ pageId: PAGE, description: 'Our documented video' });
    expect(await postRow(id)).toMatchObject({
      status: 'published',
      external_post_id: video.id,
      permalink_url: `https://www.facebook.com/${PAGE}/videos/${video.id}/`,
    });
  }, 60_000);

  it('opens the session with the Page token where the connection has no user token (a CLI connection)', async () => {
    const { key, pageToken } = await connectedPage('cli');
    const { id } = await videoPost(key, 'A CLI video');
    const from = fb.received.length;
    expect(await publish(id), (await postRow(id)).error).toBe('published');
    const open = since(from).filter(isOpen);
    expect(open.map((r) => r.headers.authorization)).toEqual([`OAuth ${pageToken}`]);
  }, 60_000);

  it('publishes the handle once: a lost answer is read back among the Page videos, not published again', async () => {
    const { key } = await connectedPage();
    const { id } = await videoPost(key, 'Published once');
    fb.loseNextAnswer = true;
    const from = fb.received.length;
    await expect(publish(id)).rejects.toThrow(/Facebook answered 500/);
    expect(await publish(id, 2)).toBe('published');
    const calls = since(from);
    expect(calls.filter(isPublish)).toHaveLength(1);
    // The bytes were not sent again, nor a session opened again: the handle was remembered.
    expect(calls.filter(isOpen)).toHaveLength(1);
    expect(calls.filter((r) => isUpload(r) && r.method === 'POST')).toHaveLength(1);
    const made = [...fb.videos.values()].filter((v) => v.description === 'Published once');
    expect(made).toHaveLength(1);
    expect((await postRow(id)).external_post_id).toBe(made[0]!.id);
  }, 60_000);

  it('asks Facebook for the handle again when its answer was lost after the bytes were in', async () => {
    const { key } = await connectedPage();
    const { id } = await videoPost(key, 'Handle lost');
    fb.answerNextUpload = { status: 503, body: { error: { message: 'unavailable', code: 2 } } };
    await expect(publish(id)).rejects.toThrow(/Facebook answered 503/);
    expect(await publish(id, 2), (await postRow(id)).error).toBe('published');
    const up = lastUpload();
    expect(up.posts).toEqual([
      { offset: 0, bytes: clip.length },
      { offset: clip.length, bytes: 0 },
    ]);
    expect((await postRow(id)).external_post_id).toBe(up.usedBy);
  }, 60_000);
});

describe('a killed worker', () => {
  it('resumes the upload at the offset Facebook has, resending no byte, in the same session', async () => {
    const { key } = await connectedPage();
    const { id } = await videoPost(key, 'Killed mid-upload');
    const child = h.worker();
    const exited = exitSignal(child);
    // Facebook takes the first 10,000 bytes; the worker dies before any answer.
    fb.takeOnlyNextUpload = 10_000;
    fb.onUpload = () => {
      fb.onUpload = undefined;
      child.kill('SIGKILL');
    };
    try {
      await new Promise<void>((r) => child.stdout!.once('data', () => r()));
      await publishNow(server.pool, id);
      expect(await exited).toBe('SIGKILL');
    } finally {
      fb.onUpload = undefined;
      fb.takeOnlyNextUpload = undefined;
    }
    await h.releaseDeadWorker(id);
    const sessions = fb.uploads.size;
    const from = fb.received.length;
    expect(await publish(id, 2), (await postRow(id)).error).toBe('published');
    expect(fb.uploads.size).toBe(sessions);
    const up = lastUpload();
    expect(up.posts).toEqual([
      { offset: 0, bytes: 10_000 },
      { offset: 10_000, bytes: clip.length - 10_000 },
    ]);
    expect(up.bytes.equals(clip)).toBe(true);
    expect(since(from).filter((r) => isUpload(r) && r.method === 'GET')).toHaveLength(1);
    expect((await postRow(id)).external_post_id).toBe(up.usedBy);
  }, 60_000);
});

describe('the older phases, where the uploads endpoint does not exist', () => {
  it('falls back to upload_phase start/transfer/finish when Facebook answers the uploads endpoint is unsupported, and a retry does not ask again', async () => {
    fb.resumableUploads = false;
    const { key } = await connectedPage();
    const { id } = await videoPost(key, 'By the older phases');
    fb.loseNextAnswer = true;
    const from = fb.received.length;
    await expect(publish(id)).rejects.toThrow(/Facebook answered 500/);
    expect(await publish(id, 2), (await postRow(id)).error).toBe('published');
    const calls = since(from);
    expect(calls.filter(isOpen)).toHaveLength(1);
    expect(calls.some(isUpload)).toBe(false);
    expect(calls.some(isOlderPhase)).toBe(true);
    const video = [...fb.videos.values()].at(-1)!;
    expect(video).toMatchObject({ finished: true, description: 'By the older phases' });
    expect((await postRow(id)).external_post_id).toBe(video.id);
  }, 60_000);

  it('uses the older phases without asking when no FACEBOOK_CLIENT_ID names the app', async () => {
    const { key } = await connectedPage();
    const { id } = await videoPost(key, 'No app id');
    const from = fb.received.length;
    expect(await publish(id, 1, false)).toBe('published');
    const calls = since(from);
    expect(calls.some(isOpen)).toBe(false);
    expect(calls.some(isOlderPhase)).toBe(true);
  }, 60_000);

  it('does not fall back when the uploads endpoint refuses for another reason (an expired user token)', async () => {
    const { key, userToken } = await connectedPage();
    const { id } = await videoPost(key, 'Refused, not unsupported');
    fb.tokens.delete(userToken);
    const from = fb.received.length;
    expect(await publish(id)).toBe('failed');
    const calls = since(from);
    expect(calls.some(isOlderPhase)).toBe(false);
    expect((await postRow(id)).error).toMatch(/Facebook/);
  }, 60_000);
});

describe('hostile answers to the upload', () => {
  it('fails, publishing nothing, on a session id, a handle or a state that is not as documented', async () => {
    const { key } = await connectedPage();
    const other = `2:${Buffer.from('another.mp4').toString('base64')}:${Buffer.from('video/mp4').toString('base64')}:ARZ1:e:1`;
    const cases: [string, () => void, RegExp][] = [
      [
        'no handle',
        () => {
          fb.answerNextUpload = { status: 200, body: { success: true } };
        },
        /without the JSON it documents \(h: /,
      ],
      [
        'a handle of another file',
        () => {
          fb.answerNextUpload = { status: 200, body: { h: other } };
        },
        /handle of another file/,
      ],
      [
        'a huge answer',
        () => {
          fb.answerNextUpload = { status: 200, raw: Buffer.alloc(2 * 1024 * 1024, 'a') };
        },
        /Facebook/,
      ],
      [
        'a session id that is not one',
        () => {
          fb.answerNext(`POST /v25.0/${META_APP.id}/uploads`, {
            status: 200,
            body: { id: '../../101000000000001/feed' },
          });
        },
        /not an upload session id/,
      ],
    ];
    for (const [what, arrange, error] of cases) {
      const { id } = await videoPost(key, `Hostile: ${what}`);
      arrange();
      const videos = fb.videos.size;
      expect(await publish(id), what).toBe('failed');
      const row = await postRow(id);
      expect(row.external_post_id, what).toBeNull();
      expect(row.error, what).toMatch(error);
      expect(fb.videos.size, what).toBe(videos);
    }
  }, 60_000);
});
