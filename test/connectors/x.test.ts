// The X connector through the real publication job and Postgres, against the X stand-in
// (test/support/platforms/x.ts, written from X's documentation, checking every request body
// against X's OpenAPI schemas): what is posted, media uploads, threads resumed without a
// repeated part, the duplicate 403 read back, a 429 waited out, a 401 answered by one refresh.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { PublicationError } from '../../core/connectors/connector.ts';
import { xRefusal } from '../../core/connectors/x/api.ts';
import { collectAccountMetrics } from '../../core/metrics/collect.ts';
import { retryJobOf } from '../support/jobs.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { useXHarness, useXStandIn } from '../support/platforms/xHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const KEY = credentialsKey(Buffer.alloc(32, 9).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
// Whatever a test sends, X's own schemas must accept (useXStandIn checks after each).
const x = useXStandIn();
const h = useXHarness(server, x, KEY);
let clipDir: string;

beforeAll(() => {
  clipDir = mkdtempSync(path.join(os.tmpdir(), 'sps-x-'));
});
afterAll(() => rmSync(clipDir, { recursive: true, force: true }));

const posted = (line: string) => x.requests.filter((r) => `${r.method} ${r.path}` === line).length;
const tweet = (id: string) => x.tweets.find((t) => t.id === id)!;

describe('publishing to X', () => {
  it('posts the text with its hashtags, and keeps the id and the x.com permalink', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Hello X & friends', hashtags: '#launch' });
    expect(await h.runJob(post)).toBe('published');
    const row = await h.row(post.id);
    const made = tweet(row.external_post_id);
    expect(made).toMatchObject({ sent: 'Hello X & friends\n\n#launch', replyTo: undefined });
    expect(row.permalink_url).toBe(`https://x.com/brand/status/${made.id}`);
  });

  it('uploads two images by the simple upload and attaches both', async () => {
    const { key } = await h.connectBrand();
    const ids = [];
    for (const colour of ['#f00', '#0f0'])
      ids.push(
        (await uploadImage(server, key, await solidPng({ width: 12, height: 8 }, colour))).id,
      );
    const before = posted('POST /2/media/upload');
    const post = await h.schedule(key, { body: 'Two colours', asset_ids: ids });
    expect(await h.runJob(post)).toBe('published');
    const made = tweet((await h.row(post.id)).external_post_id);
    expect(made.mediaIds).toHaveLength(2);
    expect(posted('POST /2/media/upload') - before).toBe(2);
    expect(made.mediaIds.map((id) => x.media.get(id)!.category)).toEqual([
      'tweet_image',
      'tweet_image',
    ]);
  });

  it('attaches the media it uploaded already when the attempt is retried', async () => {
    const { key } = await h.connectBrand();
    const asset = await uploadImage(server, key, await solidPng({ width: 6, height: 6 }, '#00f'));
    const post = await h.schedule(key, { body: 'Uploaded once', asset_ids: [asset.id] });
    const before = posted('POST /2/media/upload');
    x.inject({
      line: 'POST /2/tweets',
      answer: { status: 503, body: '{"title":"Service Unavailable"}' },
    });
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true, status: 503 });
    expect(await h.runJob(post, 2)).toBe('published');
    expect(posted('POST /2/media/upload') - before).toBe(1);
    const made = tweet((await h.row(post.id)).external_post_id);
    expect(made.mediaIds).toHaveLength(1);
  });

  it('uploads a video in chunks and waits for X to process it before posting', async () => {
    const { key } = await h.connectBrand();
    const file = path.join(clipDir, 'clip.mp4');
    await makeTestClip(file, 1, { silent: true });
    const asset = await uploadMediaFile(server, key, file, 'clip.mp4');
    const post = await h.schedule(key, { body: 'A clip', asset_ids: [asset.id] });
    const statusReads = posted('GET /2/media/upload');
    expect(await h.runJob(post)).toBe('published');
    const made = tweet((await h.row(post.id)).external_post_id);
    const media = x.media.get(made.mediaIds[0]!)!;
    expect(media).toMatchObject({
      category: 'tweet_video',
      mediaType: 'video/mp4',
      state: 'succeeded',
    });
    // Posted only once X said `succeeded`: pending, in_progress, then succeeded.
    expect(posted('GET /2/media/upload') - statusReads).toBe(x.processingChecks);
  });

  it("fails with X's reason when X cannot process the video, posting nothing", async () => {
    const { key } = await h.connectBrand();
    const file = path.join(clipDir, 'bad.mp4');
    await makeTestClip(file, 1, { silent: true });
    const asset = await uploadMediaFile(server, key, file, 'bad.mp4');
    const post = await h.schedule(key, { body: 'A broken clip', asset_ids: [asset.id] });
    const tweets = x.tweets.length;
    x.failProcessing = true;
    try {
      expect(await h.runJob(post)).toBe('failed');
    } finally {
      x.failProcessing = false;
    }
    expect((await h.row(post.id)).error).toBe('X could not process the media.');
    expect(x.tweets.length).toBe(tweets);
  });
});

describe('a thread', () => {
  it('is a chain of replies, resumed after a failure between parts without repeating one', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, {
      kind: 'thread',
      body: 'First of three\n---\nSecond of three\n---\nThird of three',
      hashtags: '#thread',
    });
    // Part 2 is made, but its answer never arrives: the attempt fails, to be retried.
    x.inject({ line: 'POST /2/tweets', skip: 1, when: 'after', answer: 'drop' });
    const before = posted('POST /2/tweets');
    const first = await h.runJob(post, 1).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(PublicationError);
    expect((first as PublicationError).retryable).toBe(true);
    expect((await h.row(post.id)).status).toBe('publishing');
    expect(posted('POST /2/tweets') - before).toBe(2);

    expect(await h.runJob(post, 2)).toBe('published');
    const row = await h.row(post.id);
    const root = tweet(row.external_post_id);
    const second = x.tweets.find((t) => t.replyTo === root.id)!;
    const third = x.tweets.find((t) => t.replyTo === second.id)!;
    expect([root.sent, second.sent, third.sent]).toEqual([
      'First of three',
      'Second of three',
      'Third of three\n\n#thread',
    ]);
    // Part 2 was found among the account's posts, not posted again: three posts, three POSTs.
    expect(
      x.tweets.filter((t) => t.sent.endsWith('of three') || t.sent.includes('#thread')),
    ).toHaveLength(3);
    expect(posted('POST /2/tweets') - before).toBe(3);
  });

  it('posts a part again when the failed try never reached X', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { kind: 'thread', body: 'Alpha one\n---\nAlpha two' });
    x.inject({
      line: 'POST /2/tweets',
      answer: { status: 503, body: '{"title":"Service Unavailable"}' },
    });
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true });
    expect(await h.runJob(post, 2)).toBe('published');
    const root = tweet((await h.row(post.id)).external_post_id);
    expect(root.sent).toBe('Alpha one');
    expect(x.tweets.filter((t) => t.replyTo === root.id).map((t) => t.sent)).toEqual(['Alpha two']);
  });
});

describe("X's 403 for duplicate content", () => {
  it('is read back as the post the earlier try made, never a new post', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Said once only' });
    x.inject({ line: 'POST /2/tweets', when: 'after', answer: 'drop' });
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true });
    // The retry's first reading misses the post (X's timeline lags), so it posts again and X
    // answers 403 duplicate: the second reading finds the post the first try made.
    x.timelineLag = 1;
    expect(await h.runJob(post, 2)).toBe('published');
    const made = x.tweets.filter((t) => t.sent === 'Said once only');
    expect(made).toHaveLength(1);
    expect((await h.row(post.id)).external_post_id).toBe(made[0]!.id);
  });

  it('fails saying so when the duplicate is not a post this publication made', async () => {
    const { key } = await h.connectBrand();
    // The account posted this text itself an hour ago.
    x.tweets.push({
      id: '1860000000000099999',
      authorId: x.user.id,
      text: 'Old news',
      sent: 'Old news',
      createdAt: new Date(Date.now() - 3_600_000),
      replyTo: undefined,
      mediaIds: [],
      metrics: { retweets: 0, replies: 0, likes: 0, quotes: 0, views: 0 },
    });
    const post = await h.schedule(key, { body: 'Old news' });
    expect(await h.runJob(post)).toBe('failed');
    const row = await h.row(post.id);
    expect(row.external_post_id).toBeNull();
    expect(row.error).toBe(
      'X refused the post as a duplicate of an earlier post with the same text, which is not ' +
        'among the posts this publication made; change the text to post it again.',
    );
  });
});

describe('limits and tokens', () => {
  it('waits out a 429 until x-rate-limit-reset, through the rescheduled job', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Slow down' });
    x.rateLimitResetS = 120;
    x.inject({ line: 'POST /2/tweets', answer: 'rate_limit' });
    expect(await h.runJob(post, 1)).toBe('retrying');
    const next = await retryJobOf(server.pool, post.id);
    // x-rate-limit-reset is in whole seconds: the wait is the 120 s less the part second gone.
    expect(next!.delay_ms).toBeGreaterThan(118_000);
    expect(next!.delay_ms).toBeLessThanOrEqual(120_000);
    expect(await h.runJob(post, 2)).toBe('published');
    expect(x.tweets.filter((t) => t.sent === 'Slow down')).toHaveLength(1);
  });

  it('reads the reset from x-rate-limit-reset, else the wait from Retry-After', () => {
    const answer = (headers: Record<string, string>) =>
      xRefusal({ status: 429, headers, json: { title: 'Too Many Requests' } });
    expect(answer({ 'x-rate-limit-reset': '1800000090' })).toMatchObject({
      retryable: true,
      retryAt: new Date(1_800_000_090_000),
      status: 429,
    });
    expect(answer({ 'retry-after': '30' })).toMatchObject({
      retryAt: undefined,
      retryAfterMs: 30_000,
    });
    expect(answer({})).toMatchObject({ retryAt: undefined, retryAfterMs: undefined });
  });

  it('answers a 401 with one refresh, keeps the rotated tokens, and posts', async () => {
    const { key, connectedId } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'After a refresh' });
    x.expireAccessTokens();
    const refreshes = x.refreshes.ok;
    expect(await h.runJob(post)).toBe('published');
    expect(x.refreshes.ok - refreshes).toBe(1);
    expect(x.refreshes.reused).toBe(0);
    const stored = (await h.connection(connectedId)).credentials;
    // The new refresh token is the one kept: the old one is spent.
    expect(stored.refresh_token).toMatch(/^xrt-/);
    expect(stored.access_token).not.toBe(undefined);
    expect(stored.user_id).toBe(x.user.id);
  });

  it("refuses content with X's own words, at once", async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Refused' });
    x.inject({
      line: 'POST /2/tweets',
      answer: {
        status: 400,
        body: JSON.stringify({
          errors: [{ parameters: {}, message: 'Your media IDs are invalid.' }],
          title: 'Invalid Request',
          detail: 'One or more parameters to your request was invalid.',
          type: 'https://api.twitter.com/2/problems/invalid-request',
        }),
      },
    });
    expect(await h.runJob(post)).toBe('failed');
    expect((await h.row(post.id)).error).toBe(
      'X answered 400: One or more parameters to your request was invalid. Your media IDs are invalid.',
    );
  });
});

describe('reading X', () => {
  it("the metrics collection keeps an X post's public counts", async () => {
    const { key, connectedId } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Collected' });
    await h.runJob(post);
    const id = (await h.row(post.id)).external_post_id;
    Object.assign(tweet(id).metrics, { retweets: 4, replies: 1, likes: 12, quotes: 2, views: 300 });
    const deps = { pool: server.pool, connectors: { x: h.connector }, credentialsKey: KEY };
    expect(await collectAccountMetrics(deps, connectedId)).toMatchObject({ counted: 1 });
    const { rows } = await server.pool.query(
      'select likes, reposts, replies, quotes, views::int as views from post_metrics where post_id = $1',
      [post.id],
    );
    expect(rows).toEqual([{ likes: 12, reposts: 4, replies: 1, quotes: 2, views: 300 }]);
  });

  it('counts our posts by public_metrics under either name of the repost count', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Count me' });
    await h.runJob(post);
    const id = (await h.row(post.id)).external_post_id;
    Object.assign(tweet(id).metrics, { retweets: 3, replies: 2, likes: 7, quotes: 1, views: 90 });
    const account = {
      handle: '@brand',
      credentials: { access_token: x.issueTokens().access_token, user_id: x.user.id },
      saveCredentials: async () => {},
    };
    for (const field of ['retweet_count', 'repost_count'] as const) {
      x.repostField = field;
      const counts = await h.connector.postMetrics!(account, [id, '1']);
      expect(counts.get(id)).toEqual({ likes: 7, reposts: 3, replies: 2, quotes: 1, views: 90 });
      expect(counts.has('1')).toBe(false);
    }
    x.repostField = 'retweet_count';
    const recent = await h.connector.recentPosts!(account, 5);
    expect(recent[0]).toMatchObject({
      id: x.tweets.filter((t) => !t.replyTo).at(-1)!.id,
      url: expect.stringMatching(/^https:\/\/x\.com\/brand\/status\/\d+$/),
    });
    expect(recent.every((p) => x.tweets.find((t) => t.id === p.id && !t.replyTo))).toBe(true);
  });
});
