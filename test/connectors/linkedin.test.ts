// The LinkedIn connector through the real publication job and Postgres, against a stand-in
// written from LinkedIn's documentation (test/support/platforms/linkedin.ts): text, images,
// video with processing, the DUPLICATE_POST read back, a worker killed between LinkedIn's 201
// and our commit, the daily limit's 429, and a 401 refreshed or ending in a reconnect.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { platformFitIssues } from '../../core/kernel/platformFit.ts';
import { retryJobOf } from '../support/jobs.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import type { LinkedInPost } from '../support/platforms/linkedin.ts';
import {
  linkedinEnv,
  linkedinHarness,
  useLinkedInHarness,
  useLinkedInStandIn,
} from '../support/platforms/linkedinHarness.ts';
import {
  exitSignal,
  releaseDeadWorkersJob,
  spawnPublishWorker,
} from '../support/platforms/publishCrash.ts';
import { call } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';
import { waitFor } from '../support/wait.ts';

const KEY_BASE64 = Buffer.alloc(32, 5).toString('base64');
const KEY = credentialsKey(KEY_BASE64);

const server = useServer({ env: LOOPBACK_OUTBOUND });
const li = useLinkedInStandIn({ videoPartBytes: 16 * 1024 });
const h = useLinkedInHarness(server, li, KEY);
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sps-linkedin-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('publishing to LinkedIn', () => {
  it('publishes text as the member, with the version headers, and keeps the URN and permalink', async () => {
    const { key, member } = await h.connectMember();
    const post = await h.schedule(key, {
      body: 'Launch day (finally) at https://example.com/a_(b) with @team',
      hashtags: '#launch #saas_tools',
    });
    expect(await h.runJob(post)).toBe('published');
    const made = li.posts.at(-1)!;
    expect(made.author).toBe(`urn:li:person:${member.sub}`);
    // Little text: reserved characters escaped, the address and the hashtags left whole.
    expect(made.commentary).toBe(
      'Launch day \\(finally\\) at https://example.com/a_(b) with \\@team\n\n#launch #saas_tools',
    );
    expect(made.body).toMatchObject({
      visibility: 'PUBLIC',
      lifecycleState: 'PUBLISHED',
      distribution: { feedDistribution: 'MAIN_FEED' },
    });
    expect(await h.row(post.id)).toMatchObject({
      status: 'published',
      external_post_id: made.urn,
      permalink_url: `https://www.linkedin.com/feed/update/${made.urn}/`,
    });
    expect(li.headerFaults).toEqual([]);
  });

  it('posts as the connection organization when it has one', async () => {
    const { key, member } = await h.connectMember({ organization: 'urn:li:organization:2414183' });
    li.administer(member.sub, 'urn:li:organization:2414183');
    const post = await h.schedule(key, { body: 'From the Page' });
    expect(await h.runJob(post)).toBe('published');
    expect(li.posts.at(-1)!.author).toBe('urn:li:organization:2414183');
  });

  it('fails, quoting LinkedIn, a post as a Page the member does not administer', async () => {
    const { key, connectedId } = await h.connectMember({
      organization: 'urn:li:organization:99',
    });
    const post = await h.schedule(key, { body: 'Not my Page' });
    expect(await h.runJob(post, 5)).toBe('failed');
    const row = await h.row(post.id);
    expect(row.error).toMatch(/^LinkedIn answered 403: Unpermitted fields present in REQUEST_BODY/);
    expect((await h.connection(connectedId)).status).not.toBe('needs_reconnect');
  });

  it('uploads one image and posts it as content.media', async () => {
    const { key } = await h.connectMember();
    const png = await solidPng({ width: 40, height: 30 }, '#0a66c2');
    const asset = await uploadImage(server, key, png);
    const post = await h.schedule(key, { body: 'One picture', asset_ids: [asset.id] });
    expect(await h.runJob(post)).toBe('published');
    const urn = (li.posts.at(-1)!.content as { media: { id: string } }).media.id;
    expect(li.images.get(urn)).toMatchObject({ status: 'AVAILABLE', bytes: png.length });
  });

  it('posts an image without waiting when the app may not read its status', async () => {
    const { key } = await h.connectMember();
    const asset = await uploadImage(server, key, await solidPng({ width: 9, height: 9 }, '#321'));
    const post = await h.schedule(key, { body: 'No status to read', asset_ids: [asset.id] });
    li.imageReads = false;
    try {
      expect(await h.runJob(post)).toBe('published');
    } finally {
      li.imageReads = true;
    }
  });

  it('posts several images as a multiImage, as an image post or a carousel', async () => {
    const { key } = await h.connectMember();
    const ids = [];
    for (const colour of ['#f00', '#0f0', '#00f'])
      ids.push(
        (await uploadImage(server, key, await solidPng({ width: 8, height: 8 }, colour))).id,
      );
    const images = await h.schedule(key, { body: 'Three pictures', asset_ids: ids });
    expect((await h.row(images.id)).kind).toBe('image');
    const carousel = await h.schedule(key, {
      kind: 'carousel',
      body: 'Two pictures',
      asset_ids: ids.slice(0, 2),
    });
    expect(await h.runJob(images)).toBe('published');
    expect(await h.runJob(carousel)).toBe('published');
    const imagesOf = (p: LinkedInPost | undefined) =>
      (p!.content as { multiImage: { images: { id: string }[] } }).multiImage.images;
    expect(imagesOf(li.posts.at(-2))).toHaveLength(3);
    expect(imagesOf(li.posts.at(-1))).toHaveLength(2);
  });

  it('refuses at create time what LinkedIn would: 21 images, a carousel with a video, too many pixels', async () => {
    const shape = (kind: 'image' | 'carousel', media: ('image' | 'video')[]) =>
      platformFitIssues({ platform: 'linkedin', kind, body: 'x', hashtags: null, media }).map(
        (i) => i.msg,
      );
    expect(shape('image', Array(21).fill('image'))).toEqual([
      'a image post on linkedin carries at most 20 image(s); use kind "carousel" for more',
    ]);
    expect(shape('carousel', Array(21).fill('image'))).toEqual([
      'a carousel post on linkedin needs 2 to 20 images and no video; it has 21 item(s)',
    ]);
    expect(shape('carousel', ['image', 'video'])).toEqual([
      'a carousel post on linkedin needs 2 to 20 images and no video; it has 2 item(s)',
    ]);
    expect(shape('image', Array(20).fill('image'))).toEqual([]);

    const { key } = await h.connectMember();
    const huge = await uploadImage(
      server,
      key,
      await solidPng({ width: 6020, height: 6006 }, '#fff'),
    );
    const refused = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'linkedin', body: 'Too big', asset_ids: [huge.id] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'asset_ids', 0],
        msg: 'linkedin takes images of fewer than 36,152,320 pixels; this one has 36,156,120',
      }),
    ]);
  }, 30_000);

  it('uploads a video in its ranged parts, finalizes it with their ETags and waits until AVAILABLE', async () => {
    const { key } = await h.connectMember();
    const file = path.join(tmp, 'clip.mp4');
    await makeTestClip(file, 2);
    const asset = await uploadMediaFile(server, key, file, 'clip.mp4');
    const post = await h.schedule(key, { body: 'A video', asset_ids: [asset.id] });
    li.processingPolls = 3;
    expect(await h.runJob(post)).toBe('published');
    const urn = (li.posts.at(-1)!.content as { media: { id: string } }).media.id;
    const video = li.videos.get(urn)!;
    expect(video.parts.length).toBeGreaterThan(1);
    expect(video.parts.every((p) => p.etag && p.bytes === p.lastByte - p.firstByte + 1)).toBe(true);
    expect(video).toMatchObject({ status: 'AVAILABLE', polls: 4 });
  }, 60_000);

  it('fails the post, posting nothing, when LinkedIn cannot process the video', async () => {
    const { key } = await h.connectMember();
    const asset = await uploadMediaFile(server, key, path.join(tmp, 'clip.mp4'), 'clip.mp4');
    const post = await h.schedule(key, { body: 'A broken video', asset_ids: [asset.id] });
    li.failNextVideo();
    const requests = li.postRequests.length;
    expect(await h.runJob(post, 5)).toBe('failed');
    expect((await h.row(post.id)).error).toBe(
      'LinkedIn could not process the video: Video is corrupt.',
    );
    expect(li.postRequests.length).toBe(requests);
  });
});

describe('exactly once', () => {
  it('refuses, quoting LinkedIn, a DUPLICATE_POST when no earlier run posted: an older post is not this one', async () => {
    const { key } = await h.connectMember();
    const first = await h.schedule(key, { body: 'Said once' });
    const again = await h.schedule(key, { body: 'Said once' });
    expect(await h.runJob(first)).toBe('published');
    const before = li.posts.length;
    expect(await h.runJob(again)).toBe('failed');
    expect(li.posts.length).toBe(before);
    const row = await h.row(again.id);
    expect(row.external_post_id).toBeNull();
    expect(row.error).toBe(
      `LinkedIn already has this text as ${(await h.row(first.id)).external_post_id}, posted ` +
        'before this publication: change the text to post it again.',
    );
  });

  it('records the post a DUPLICATE_POST names when an earlier run of the attempt posted it', async () => {
    const { key } = await h.connectMember();
    const post = await h.schedule(key, { body: 'Made, answer lost' });
    // LinkedIn makes the post, and its answer is a 504 from a gateway.
    li.overridePosts([(res) => res.writeHead(504).end('{"message":"Gateway Timeout"}')], {
      create: true,
    });
    await expect(h.runJob(post)).rejects.toThrow(/LinkedIn answered 504/);
    expect(await h.runJob(post, 2)).toBe('published');
    const made = li.posts.filter((p) => p.commentary === 'Made, answer lost');
    expect(made).toHaveLength(1);
    expect((await h.row(post.id)).external_post_id).toBe(made[0]!.urn);
  });

  it('publishes one post when the worker is killed after LinkedIn created it', async () => {
    const { key } = await h.connectMember();
    const post = await h.schedule(key, { body: 'Exactly once, across a crash' });
    const child = spawnPublishWorker(server, {
      env: linkedinEnv(li),
      credentialsKey: KEY_BASE64,
    });
    const exited = exitSignal(child);
    // LinkedIn has the post; the worker dies before reading the 201.
    li.onCreated = async (created) => {
      if (created.commentary !== 'Exactly once, across a crash') return;
      child.kill('SIGKILL');
      await exited;
    };
    try {
      await server.pool.query(
        `select count(*) from graphile_worker.reschedule_jobs(
           array(select id from graphile_worker.jobs where key = $1), run_at := now())`,
        [`publish_post:${post.id}`],
      );
      expect(await exited).toBe('SIGKILL');
    } finally {
      li.onCreated = undefined;
    }
    expect((await h.row(post.id)).status).toBe('publishing');
    await releaseDeadWorkersJob(server.pool, post.id);

    const requests = li.postRequests.length;
    expect(await h.runJob(post, 2)).toBe('published');
    // The retry re-sent the same commentary, and LinkedIn's DUPLICATE_POST named the post.
    expect(li.postRequests.length).toBe(requests + 1);
    const made = li.posts.filter((p) => p.commentary === 'Exactly once, across a crash');
    expect(made).toHaveLength(1);
    expect((await h.row(post.id)).external_post_id).toBe(made[0]!.urn);
  }, 60_000);

  it('does not upload an image again when the attempt is retried', async () => {
    const { key } = await h.connectMember();
    const asset = await uploadImage(server, key, await solidPng({ width: 6, height: 6 }, '#abc'));
    const post = await h.schedule(key, { body: 'Uploaded once', asset_ids: [asset.id] });
    li.overridePosts([(res) => res.writeHead(503).end('{"message":"Service Unavailable"}')]);
    await expect(h.runJob(post)).rejects.toThrow(/LinkedIn answered 503: Service Unavailable/);
    const images = li.images.size;
    expect(await h.runJob(post, 2)).toBe('published');
    expect(li.images.size).toBe(images);
  });

  it('waits for an image still processing in a later attempt, without uploading it again', async () => {
    const { key } = await h.connectMember();
    const asset = await uploadImage(server, key, await solidPng({ width: 5, height: 5 }, '#123'));
    const post = await h.schedule(key, { body: 'Slow to process', asset_ids: [asset.id] });
    li.imageProcessingPolls = 1_000;
    try {
      // One attempt polls for 200 ms, then leaves the rest to a later one.
      const brief = linkedinHarness(server, li, KEY, {
        mediaPoll: { intervalMs: 20, boundMs: 200 },
      });
      expect(await brief.runJob(post, 1)).toBe('retrying');
    } finally {
      li.imageProcessingPolls = 1;
    }
    const next = await waitFor(() => retryJobOf(server.pool, post.id), { what: 'the retry job' });
    expect(next.delay_ms).toBe(60_000);
    const images = li.images.size;
    expect(await h.runJob(post, 2)).toBe('published');
    expect(li.images.size).toBe(images);
    expect(li.posts.filter((p) => p.commentary === 'Slow to process')).toHaveLength(1);
  });
});

describe('limits and tokens', () => {
  it('reschedules a 429 for the next midnight UTC, when the daily limit resets', async () => {
    const { key } = await h.connectMember();
    const post = await h.schedule(key, { body: 'Over the daily limit' });
    li.throttlePosts(1);
    expect(await h.runJob(post)).toBe('retrying');
    const next = await waitFor(() => retryJobOf(server.pool, post.id), { what: 'the retry job' });
    const now = next.updated_at.getTime();
    const midnight = new Date(now);
    midnight.setUTCHours(24, 0, 0, 0);
    // At the reset, or as near it as the job allows a wait (the job caps how long it waits).
    expect(next.run_at.getTime()).toBeLessThanOrEqual(midnight.getTime() + 1_000);
    expect(next.run_at.getTime() - now).toBeGreaterThanOrEqual(
      Math.min(midnight.getTime() - now, 10 * 60_000) - 1_000,
    );
    expect(li.posts.some((p) => p.commentary === 'Over the daily limit')).toBe(false);
  });

  it('refreshes on a 401 when the connection has a partner refresh token, and stores the new token', async () => {
    const { key, member, connectedId } = await h.connectMember({ partner: true });
    li.expire(member.accessToken);
    const post = await h.schedule(key, { body: 'After a refresh' });
    expect(await h.runJob(post)).toBe('published');
    expect(li.tokenRequests.filter((r) => r.refresh_token === member.refreshToken)).toHaveLength(1);
    const { credentials: stored, sealed } = await h.connection(connectedId);
    expect(stored.access_token).not.toBe(member.accessToken);
    expect(stored.refresh_token).toBe(member.refreshToken);
    expect(sealed.toString('latin1')).not.toContain(String(stored.access_token));
  });

  it('fails the post and asks for a reconnect when the 60-day token expired without a refresh token', async () => {
    const { key, member, connectedId } = await h.connectMember();
    li.expire(member.accessToken);
    const post = await h.schedule(key, { body: 'Expired' });
    expect(await h.runJob(post)).toBe('failed');
    const row = await h.row(post.id);
    expect(row.error).toMatch(/60 days.*no refresh token.*reconnect the account/);
    const { status, last_error } = await h.connection(connectedId);
    expect({ status, last_error }).toEqual({ status: 'needs_reconnect', last_error: row.error });
    const events = await server.pool.query('select type from events where post_id = $1', [post.id]);
    expect(events.rows.map((e) => e.type)).toEqual(['post.failed']);
  });
});
