// The Facebook Pages connector through the real publication job, the connection layer's token
// refresh and Postgres, against a stand-in written from Meta's documentation
// (test/support/platforms/facebook.ts): text and link posts, one photo, several photos attached
// to one post, a video's resumable upload resumed after a failure and after a killed worker,
// exactly once across a worker killed between Facebook's answer and our commit, the 506 read
// back, throttling rescheduled, an expired Page token refreshed or ending in a reconnect,
// hostile answers.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { usageResetAt } from '../../core/connectors/meta/graphErrors.ts';
import { platformFitIssues } from '../../core/kernel/platformFit.ts';
import { publishNow, retryJobOf } from '../support/jobs.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import {
  FACEBOOK_PAGE,
  useFacebookHarness,
  useFacebookStandIn,
} from '../support/platforms/facebookHarness.ts';
import { graphError } from '../support/platforms/metaGraph.ts';
import { exitSignal } from '../support/platforms/publishCrash.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';
import { waitFor } from '../support/wait.ts';

const KEY_BASE64 = Buffer.alloc(32, 6).toString('base64');

const server = useServer({ env: LOOPBACK_OUTBOUND });
const fb = useFacebookStandIn();
const h = useFacebookHarness(server, fb, KEY_BASE64);
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sps-facebook-'));
  await makeTestClip(path.join(tmp, 'clip.mp4'), 2);
}, 60_000);
// The video tests here are of the Video API's older phases, which the connector falls back to
// where the uploads endpoint does not exist (the documented flow: facebookVideo.test.ts).
afterEach(() => {
  fb.resumableUploads = true;
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const PAGE = FACEBOOK_PAGE;
/** A brand connected to the stand-in's Page, as the connect flow stores it. */
const connectedPage = () => h.connectPage();
const schedule = async (key: string, body: Record<string, unknown>) =>
  (await h.schedule(key, body)).id;
const postRow = (id: string) => h.row(id);

/** One run of the publication job, as the worker runs it (attempt `n` of 5). */
async function publish(id: string, n = 1) {
  const row = await postRow(id);
  return h.runJob({ id, at: row.scheduled_for.toISOString() }, n);
}

const posting = (edge: string) =>
  fb.received.filter((r) => r.method === 'POST' && r.path === `/v25.0/${PAGE}/${edge}`);

describe('publishing to a Facebook Page', () => {
  it('posts text on the feed as the Page, with its Page token, and keeps id and permalink', async () => {
    const { key, pageToken } = await connectedPage();
    const id = await schedule(key, { body: 'Opening hours change', hashtags: '#news' });
    expect(await publish(id)).toBe('published');
    const post = fb.posts.at(-1)!;
    expect(post).toMatchObject({ message: 'Opening hours change\n\n#news', link: undefined });
    expect(await postRow(id)).toMatchObject({
      status: 'published',
      external_post_id: post.id,
      permalink_url: `https://www.facebook.com/${PAGE}/posts/${post.id.split('_')[1]}`,
    });
    const sent = posting('feed').at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${pageToken}`);
    expect(sent.form.access_token).toBe(pageToken);
  });

  it("sends the text's first address as the post's link", async () => {
    const { key } = await connectedPage();
    const id = await schedule(key, { body: 'Read it at https://example.com/news?a=1. Thanks!' });
    expect(await publish(id)).toBe('published');
    expect(fb.posts.at(-1)).toMatchObject({
      message: 'Read it at https://example.com/news?a=1. Thanks!',
      link: 'https://example.com/news?a=1',
    });
  });

  it('uploads one photo as bytes with its caption and records the post Facebook made of it', async () => {
    const { key } = await connectedPage();
    const png = await solidPng({ width: 30, height: 20 }, '#1877f2');
    const asset = await uploadImage(server, key, png);
    const id = await schedule(key, { body: 'One photo', asset_ids: [asset.id] });
    expect(await publish(id)).toBe('published');
    const post = fb.posts.at(-1)!;
    const photo = fb.photos.get(post.photos[0]!)!;
    expect(photo).toMatchObject({ published: true, bytes: png.length, attachedTo: post.id });
    expect(post.message).toBe('One photo');
    expect((await postRow(id)).external_post_id).toBe(post.id);
  });

  it('attaches several unpublished photos to one post, and a retry uploads none again', async () => {
    const { key } = await connectedPage();
    const ids = [];
    for (const colour of ['#f00', '#0f0', '#00f'])
      ids.push(
        (await uploadImage(server, key, await solidPng({ width: 8, height: 8 }, colour))).id,
      );
    const id = await schedule(key, { kind: 'carousel', body: 'Three photos', asset_ids: ids });
    fb.answerNext(
      `POST /v25.0/${PAGE}/feed`,
      graphError(503, 2, 'Service temporarily unavailable', { is_transient: true }),
    );
    await expect(publish(id)).rejects.toThrow(/Facebook answered 503 \(code 2\)/);
    const uploads = posting('photos').length;
    expect(await publish(id, 2)).toBe('published');
    expect(posting('photos').length).toBe(uploads);
    const post = fb.posts.at(-1)!;
    expect(post.message).toBe('Three photos');
    expect(post.photos).toHaveLength(3);
    expect(post.photos.map((p) => fb.photos.get(p)!.published)).toEqual([false, false, false]);
  });

  it('refuses at create time what the connector cannot post: 11 photos, a video in a carousel, a story', () => {
    const shape = (kind: 'image' | 'carousel' | 'story', media: ('image' | 'video')[]) =>
      platformFitIssues({ platform: 'facebook', kind, body: 'x', hashtags: null, media }).map(
        (i) => i.msg,
      );
    expect(shape('image', Array(11).fill('image'))).toHaveLength(1);
    expect(shape('carousel', ['image', 'video'])).toEqual([
      'a carousel post on facebook needs 2 to 10 images and no video; it has 2 item(s)',
    ]);
    expect(shape('story', ['image'])[0]).toMatch(
      /facebook takes kind text, image, video, carousel/,
    );
    expect(shape('image', Array(10).fill('image'))).toEqual([]);
  });

  it('uploads a video in the chunks Facebook asks for, resumes after a failure without re-sending, and finishes it with the text', async () => {
    fb.resumableUploads = false;
    const { key } = await connectedPage();
    const asset = await uploadMediaFile(server, key, path.join(tmp, 'clip.mp4'), 'clip.mp4');
    const id = await schedule(key, { body: 'Our video', asset_ids: [asset.id] });
    fb.chunkBytes = 8 * 1024;
    fb.transfersBeforeFailure = 2;
    const starts = fb.videos.size;
    await expect(publish(id)).rejects.toThrow(/Facebook answered 503/);
    const outcome = await publish(id, 2);
    expect(outcome, (await postRow(id)).error).toBe('published');
    expect(fb.videos.size).toBe(starts + 1);
    const video = [...fb.videos.values()].at(-1)!;
    expect(video.transfers.length).toBeGreaterThan(3);
    // Each byte sent once: every chunk starts where the one before ended.
    expect(video.transfers.map((t) => t.start)).toEqual(
      video.transfers.map((_, i) => video.transfers.slice(0, i).reduce((n, t) => n + t.bytes, 0)),
    );
    expect(video).toMatchObject({
      finished: true,
      received: video.size,
      description: 'Our video',
    });
    expect(await postRow(id)).toMatchObject({
      status: 'published',
      external_post_id: video.id,
      permalink_url: `https://www.facebook.com/${PAGE}/videos/${video.id}/`,
    });
  }, 60_000);

  it('uploads the video again in a new session when the resumed one refuses the chunk it had taken', async () => {
    fb.resumableUploads = false;
    const { key } = await connectedPage();
    const asset = await uploadMediaFile(server, key, path.join(tmp, 'clip.mp4'), 'clip.mp4');
    const id = await schedule(key, { body: 'A second session', asset_ids: [asset.id] });
    fb.loseNextTransferAnswer = true;
    await expect(publish(id)).rejects.toThrow(/Facebook answered 503/);
    const starts = fb.videos.size;
    expect(await publish(id, 2)).toBe('published');
    expect(fb.videos.size).toBe(starts + 1);
    const [abandoned, used] = [...fb.videos.values()].slice(-2);
    expect(abandoned!.finished).toBe(false);
    expect(used).toMatchObject({
      finished: true,
      received: used!.size,
      description: 'A second session',
    });
    expect((await postRow(id)).external_post_id).toBe(used!.id);
  }, 60_000);

  it('reads a video back rather than finishing it twice when the answer to finish was lost', async () => {
    fb.resumableUploads = false;
    const { key } = await connectedPage();
    const asset = await uploadMediaFile(server, key, path.join(tmp, 'clip.mp4'), 'clip.mp4');
    const id = await schedule(key, { body: 'Finished once', asset_ids: [asset.id] });
    fb.loseNextAnswer = true;
    await expect(publish(id)).rejects.toThrow(/Facebook answered 500/);
    const finishes = () =>
      fb.received.filter((r) => r.path === `/v25.0/${PAGE}/videos` && r.raw.includes('finish'));
    const before = finishes().length;
    expect(await publish(id, 2)).toBe('published');
    expect(finishes().length).toBe(before);
    const video = [...fb.videos.values()].at(-1)!;
    expect((await postRow(id)).external_post_id).toBe(video.id);
  }, 60_000);
});

describe('exactly once', () => {
  it('publishes one post when the worker is killed after Facebook made it', async () => {
    const { key } = await connectedPage();
    const id = await schedule(key, { body: 'Exactly once, across a crash' });
    const child = h.worker();
    const exited = exitSignal(child);
    // Facebook has the post; the worker dies before reading the answer.
    fb.onCreate = (post) => {
      if (post.message !== 'Exactly once, across a crash') return;
      fb.onCreate = undefined;
      child.kill('SIGKILL');
    };
    try {
      await new Promise<void>((r) => child.stdout!.once('data', () => r()));
      await server.pool.query(
        `select count(*) from graphile_worker.reschedule_jobs(
           array(select id from graphile_worker.jobs where key = $1), run_at := now())`,
        [`publish_post:${id}`],
      );
      expect(await exited).toBe('SIGKILL');
    } finally {
      fb.onCreate = undefined;
    }
    await h.releaseDeadWorker(id);

    const feeds = posting('feed').length;
    expect(await publish(id, 2)).toBe('published');
    // Found among the Page's posts before posting: no second POST.
    expect(posting('feed').length).toBe(feeds);
    const made = fb.posts.filter((p) => p.message === 'Exactly once, across a crash');
    expect(made).toHaveLength(1);
    expect((await postRow(id)).external_post_id).toBe(made[0]!.id);
  }, 60_000);

  it('resumes a video upload where a killed worker left it, sending no chunk twice', async () => {
    fb.resumableUploads = false;
    const { key } = await connectedPage();
    const asset = await uploadMediaFile(server, key, path.join(tmp, 'clip.mp4'), 'clip.mp4');
    const id = await schedule(key, { body: 'Killed mid-upload', asset_ids: [asset.id] });
    fb.chunkBytes = 8 * 1024;
    const child = h.worker();
    const exited = new Promise((r) => child.once('exit', (_code, sig) => r(sig)));
    // Two chunks are in (and their offsets remembered); the worker dies sending the third.
    fb.onTransfer = (video) => {
      if (video.transfers.length < 2) return false;
      fb.onTransfer = undefined;
      child.kill('SIGKILL');
      return true;
    };
    try {
      await new Promise<void>((r) => child.stdout!.once('data', () => r()));
      await publishNow(server.pool, id);
      expect(await exited).toBe('SIGKILL');
    } finally {
      fb.onTransfer = undefined;
    }
    await h.releaseDeadWorker(id);
    const sessions = fb.videos.size;
    expect(await publish(id, 2)).toBe('published');
    expect(fb.videos.size).toBe(sessions);
    const video = [...fb.videos.values()].at(-1)!;
    expect(video.transfers.map((t) => t.start)).toEqual(
      video.transfers.map((_, i) => video.transfers.slice(0, i).reduce((n, t) => n + t.bytes, 0)),
    );
    expect(video).toMatchObject({ finished: true, received: video.size });
    expect((await postRow(id)).external_post_id).toBe(video.id);
  }, 60_000);

  it('reads back a 506 on a retry when the Page did not list the post yet, and records it', async () => {
    const { key } = await connectedPage();
    const id = await schedule(key, { body: 'Answer lost, then a duplicate' });
    fb.loseNextAnswer = true;
    await expect(publish(id)).rejects.toThrow(/Facebook answered 500 \(code 2\)/);
    // The read before posting again does not see it yet; Facebook then refuses it as a 506.
    fb.listLag = 1;
    for (const p of fb.posts) if (p.message === 'Answer lost, then a duplicate') p.hiddenFor = 1;
    try {
      expect(await publish(id, 2)).toBe('published');
    } finally {
      fb.listLag = 0;
    }
    const made = fb.posts.filter((p) => p.message === 'Answer lost, then a duplicate');
    expect(made).toHaveLength(1);
    expect((await postRow(id)).external_post_id).toBe(made[0]!.id);
    expect(
      posting('feed').filter((r) => r.form.message === 'Answer lost, then a duplicate'),
    ).toHaveLength(2);
  });

  it("fails a 506 on the attempt's first post, quoting Facebook: the Page's older post is not this one", async () => {
    const { key } = await connectedPage();
    const first = await schedule(key, { body: 'Said twice' });
    const again = await schedule(key, { body: 'Said twice' });
    expect(await publish(first)).toBe('published');
    const before = fb.posts.length;
    expect(await publish(again)).toBe('failed');
    expect(fb.posts.length).toBe(before);
    const row = await postRow(again);
    expect(row.external_post_id).toBeNull();
    expect(row.error).toMatch(
      /^Facebook refused the post as a duplicate \(\(#506\) Duplicate status message: Duplicate post: You cannot post duplicate posts consecutively\.\).*change the text/,
    );
  });

  it('never records a post from an answer without a real id of the Page', async () => {
    const { key } = await connectedPage();
    const answers = [
      { status: 200, raw: 'not json' },
      { status: 200, body: {} },
      { status: 200, body: { id: 'abc' } },
      { status: 200, body: { id: '999_1' } },
      { status: 200, raw: Buffer.alloc(2 * 1024 * 1024, 'a') },
    ];
    for (const [i, answer] of answers.entries()) {
      const id = await schedule(key, { body: `Hostile answer ${i}` });
      fb.answerNext(`POST /v25.0/${PAGE}/feed`, answer);
      expect(await publish(id)).toBe('failed');
      const row = await postRow(id);
      expect(row.external_post_id).toBeNull();
      expect(row.error).toMatch(/Facebook/);
    }
  });
});

describe('hostile answers to media', () => {
  it('fails, posting nothing, when an unpublished photo or a video upload is answered without its id', async () => {
    const { key } = await connectedPage();
    const images = [];
    for (const colour of ['#111', '#222'])
      images.push(
        (await uploadImage(server, key, await solidPng({ width: 4, height: 4 }, colour))).id,
      );
    const photos = await schedule(key, { body: 'Photos, hostile', asset_ids: images });
    fb.answerNext(`POST /v25.0/${PAGE}/photos`, { status: 200, body: { id: '../etc' } });
    expect(await publish(photos)).toBe('failed');
    expect((await postRow(photos)).error).toMatch(
      /without the JSON it documents \(id: not a Facebook id\)/,
    );

    fb.resumableUploads = false;
    const clip = await uploadMediaFile(server, key, path.join(tmp, 'clip.mp4'), 'clip.mp4');
    const video = await schedule(key, { body: 'Video, hostile', asset_ids: [clip.id] });
    fb.answerNext(`POST /v25.0/${PAGE}/videos`, { status: 200, body: { upload_session_id: '1' } });
    expect(await publish(video)).toBe('failed');
    for (const id of [photos, video]) expect((await postRow(id)).external_post_id).toBeNull();
    expect(fb.posts.some((p) => p.message.endsWith(', hostile'))).toBe(false);
  }, 60_000);
});

describe('limits and tokens', () => {
  it('fails a policy block (368) at once, quoting Facebook, without asking for a reconnect', async () => {
    const { key, connectedId } = await connectedPage();
    const id = await schedule(key, { body: 'Blocked' });
    fb.answerNext(
      `POST /v25.0/${PAGE}/feed`,
      graphError(
        400,
        368,
        'The action attempted has been deemed abusive or is otherwise disallowed',
        {
          error_subcode: 1390008,
        },
      ),
    );
    expect(await publish(id)).toBe('failed');
    expect((await postRow(id)).error).toBe(
      'Facebook blocked the post under its policies: The action attempted has been deemed abusive or is otherwise disallowed',
    );
    expect((await h.connection(connectedId)).status).not.toBe('needs_reconnect');
  });

  it("waits Meta's rolling hour for a throttled call whose headers say nothing", async () => {
    const { key } = await connectedPage();
    const id = await schedule(key, { body: 'Throttled, unsaid' });
    fb.answerNext(
      `POST /v25.0/${PAGE}/feed`,
      graphError(400, 4, '(#4) Application request limit reached'),
    );
    expect(await publish(id)).toBe('retrying');
    const next = await waitFor(() => retryJobOf(server.pool, id), { what: 'the retry job' });
    expect(next.delay_ms).toBeGreaterThan(59.9 * 60_000);
    expect(next.delay_ms).toBeLessThan(60.1 * 60_000);
  });

  it('reschedules a throttled post when the usage headers say access returns', async () => {
    const { key } = await connectedPage();
    const id = await schedule(key, { body: 'Throttled' });
    const usage = JSON.stringify({
      [PAGE]: [
        {
          type: 'pages',
          call_count: 100,
          total_cputime: 20,
          total_time: 30,
          estimated_time_to_regain_access: 7,
        },
      ],
    });
    fb.answerNext(
      `POST /v25.0/${PAGE}/feed`,
      graphError(400, 32, 'Page request limit reached', {}, { 'x-business-use-case-usage': usage }),
    );
    expect(await publish(id)).toBe('retrying');
    const next = await waitFor(() => retryJobOf(server.pool, id), { what: 'the retry job' });
    expect(next.delay_ms).toBeGreaterThan(6.9 * 60_000);
    expect(next.delay_ms).toBeLessThan(7.1 * 60_000);
    expect(fb.posts.some((p) => p.message === 'Throttled')).toBe(false);
    expect(
      usageResetAt(
        { 'x-app-usage': '{"call_count":100,"estimated_time_to_regain_access":3}' },
        0,
      )?.getTime(),
    ).toBe(180_000);
    expect(usageResetAt({ 'x-app-usage': 'garbage' })).toBeUndefined();
  });

  it('refetches an expired Page token with the user token, stores it sealed, and publishes', async () => {
    const { key, connectedId, pageToken, userToken } = await connectedPage();
    fb.expirePageTokens();
    const id = await schedule(key, { body: 'After a refresh' });
    expect(await publish(id)).toBe('published');
    const { credentials: stored, sealed } = await h.connection(connectedId);
    expect(stored.access_token).not.toBe(pageToken);
    expect(stored.refresh_token).toBe(userToken);
    expect(sealed.toString('latin1')).not.toContain(String(stored.access_token));
  });

  it('fails the post and asks for a reconnect when the user revoked the app', async () => {
    const { key, connectedId } = await connectedPage();
    fb.revoke();
    const id = await schedule(key, { body: 'Revoked' });
    expect(await publish(id)).toBe('failed');
    expect((await h.connection(connectedId)).status).toBe('needs_reconnect');
    expect((await postRow(id)).error).not.toMatch(/EAAP|IGQL/);
  });

  it("reads counts by ids, views only where the token may read insights, and the Page's past posts", async () => {
    const { key, pageToken } = await connectedPage();
    const id = await schedule(key, { body: 'Counted' });
    expect(await publish(id)).toBe('published');
    const postId = (await postRow(id)).external_post_id as string;
    const connector = h.connector;
    const access = {
      handle: 'Brand Studio',
      credentials: { access_token: pageToken, page_id: PAGE },
      saveCredentials: async () => {},
    };
    const counts = await connector.postMetrics!(access, [postId, `${PAGE}_1`]);
    expect(counts.get(postId)).toEqual({
      likes: 7,
      reposts: 2,
      replies: 3,
      quotes: null,
      views: 42,
    });
    expect(counts.has(`${PAGE}_1`)).toBe(false);
    fb.insights = false;
    try {
      const without = await connector.postMetrics!(access, [postId]);
      expect(without.get(postId)?.views).toBeNull();
    } finally {
      fb.insights = true;
    }
    // The history import: the Page's own posts with text, newest first, with their counts.
    const past = await connector.recentPosts!(access, 3);
    expect(past).toHaveLength(3);
    expect(past[0]).toMatchObject({
      id: postId,
      text: 'Counted',
      likes: 7,
      reposts: 2,
      replies: 3,
    });
    expect(past[0]!.url).toMatch(/^https:\/\/www\.facebook\.com\//);
    expect(Date.parse(past[0]!.postedAt)).toBeGreaterThan(Date.parse(past[2]!.postedAt) - 1);
  });
});
