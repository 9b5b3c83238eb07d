// The Threads connector through the real publication job, token layer and Postgres, against a
// stand-in written from Meta's Threads pages (test/support/platforms/threads.ts): text, an
// image and a carousel fetched from the service's public addresses, a thread of replies, the
// container resumed after an interrupted attempt, the publishing quota, a token refreshed or
// ending in a reconnect, hostile answers, and the insights.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { threadsConnector } from '../../core/connectors/threads/index.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { retryJobOf } from '../support/jobs.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { META_USER } from '../support/platforms/metaGraph.ts';
import {
  threadsHarness,
  useThreadsHarness,
  useThreadsStandIn,
} from '../support/platforms/threadsHarness.ts';
import { usePublicMediaHost } from '../support/publicMediaHost.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const KEY = credentialsKey(Buffer.alloc(32, 6).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
const t = useThreadsStandIn();
const media = usePublicMediaHost(server);
const h = useThreadsHarness(server, t, KEY, { publicMedia: media });
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sps-threads-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const USER = META_USER.id;
const publishCalls = () =>
  t.received.filter((r) => r.method === 'POST' && r.path === `/v1.0/${USER}/threads_publish`);

describe('publishing to Threads', () => {
  it('publishes text through a TEXT container, and keeps the post id and permalink', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Hello Threads 👋', hashtags: '#launch' });
    expect(await h.runJob(post)).toBe('published');
    const made = t.posts.at(-1)!;
    expect(made.text).toBe('Hello Threads 👋\n\n#launch');
    expect(made.mediaType).toBe('TEXT_POST');
    expect(t.containers.get(made.container)!.params.media_type).toBe('TEXT');
    expect(await h.row(post.id)).toMatchObject({
      status: 'published',
      external_post_id: made.id,
      permalink_url: made.permalink,
      error: null,
    });
    // The quota was read before the publish call; the token went as access_token.
    const lines = t.received.map((r) => `${r.method} ${r.path}`);
    expect(lines.lastIndexOf(`GET /v1.0/${USER}/threads_publishing_limit`)).toBeLessThan(
      lines.lastIndexOf(`POST /v1.0/${USER}/threads_publish`),
    ); // Meta's pages write the calls' parameters in the query, newer ones in the body: both carry
    // them, so a reader of either finds the container, the text and the token.
    const create = t.received.findLast(
      (r) => r.method === 'POST' && r.path === `/v1.0/${USER}/threads`,
    )!;
    const publish = publishCalls().at(-1)!;
    for (const fields of [create.query, create.form])
      expect(fields).toMatchObject({ media_type: 'TEXT', text: 'Hello Threads 👋\n\n#launch' });
    for (const fields of [publish.query, publish.form]) {
      expect(fields.creation_id).toBe(made.container);
      expect(fields.access_token).toMatch(/.+/);
    }
  });

  it('publishes an image that Threads fetches from its public address', async () => {
    const { key } = await h.connectBrand();
    const png = await solidPng({ width: 40, height: 30 }, '#000');
    const asset = await uploadImage(server, key, png);
    const post = await h.schedule(key, { body: 'A picture', asset_ids: [asset.id] });
    expect(await h.runJob(post)).toBe('published');
    const made = t.posts.at(-1)!;
    const params = t.containers.get(made.container)!.params;
    expect(params).toMatchObject({ media_type: 'IMAGE', text: 'A picture' });
    expect(t.fetched.find((f) => f.url === params.image_url)?.bytes).toBe(png.length);
    expect((await h.row(post.id)).external_post_id).toBe(made.id);
  });

  it('publishes a video that Threads fetches, once its container has finished processing', async () => {
    const { key } = await h.connectBrand();
    const file = path.join(tmp, 'clip.mp4');
    await makeTestClip(file, 1);
    const asset = await uploadMediaFile(server, key, file, 'clip.mp4');
    const post = await h.schedule(key, { body: 'A clip', asset_ids: [asset.id] });
    t.processingReads = 3;
    try {
      expect(await h.runJob(post)).toBe('published');
    } finally {
      t.processingReads = 1;
    }
    const made = t.posts.at(-1)!;
    expect(made.mediaType).toBe('VIDEO');
    const params = t.containers.get(made.container)!.params;
    expect(params.media_type).toBe('VIDEO');
    expect(t.fetched.some((f) => f.url === params.video_url && f.bytes > 0)).toBe(true);
    const reads = t.received.filter(
      (r) => r.method === 'GET' && r.path === `/v1.0/${made.container}`,
    );
    expect(reads.length).toBeGreaterThanOrEqual(4);
  });

  it('publishes a carousel: finished carousel-item children, then the CAROUSEL parent', async () => {
    const { key } = await h.connectBrand();
    const ids: string[] = [];
    for (const colour of ['#f00', '#0f0', '#00f'])
      ids.push(
        (await uploadImage(server, key, await solidPng({ width: 8, height: 8 }, colour))).id,
      );
    const post = await h.schedule(key, { kind: 'carousel', body: 'Three', asset_ids: ids });
    expect(await h.runJob(post)).toBe('published');
    const made = t.posts.at(-1)!;
    expect(made.mediaType).toBe('CAROUSEL_ALBUM');
    expect(made.children).toHaveLength(3);
    for (const child of made.children)
      expect(t.containers.get(child)!.params).toMatchObject({ is_carousel_item: 'true' });
    expect((await h.row(post.id)).external_post_id).toBe(made.id);
  });

  it('publishes a thread: each part a reply to the one before, the first recorded', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { kind: 'thread', body: 'First\n---\nSecond\n---\nThird' });
    expect(await h.runJob(post)).toBe('published');
    const [a, b, c] = t.posts.slice(-3);
    expect([a!.text, b!.text, c!.text]).toEqual(['First', 'Second', 'Third']);
    expect(a!.repliedTo).toBeUndefined();
    expect(b!.repliedTo).toBe(a!.id);
    expect(c!.repliedTo).toBe(b!.id);
    expect(await h.row(post.id)).toMatchObject({
      external_post_id: a!.id,
      permalink_url: a!.permalink,
    });
  });

  it('resumes a thread after an interrupted attempt without repeating a part', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { kind: 'thread', body: 'Part one\n---\nPart two' });
    // Once part one is published, the next container (part two's) meets a 500.
    t.onPublish = () => {
      t.onPublish = undefined;
      t.answerNext(`POST /v1.0/${USER}/threads`, {
        status: 500,
        body: { error: { message: 'An unknown error occurred', type: 'OAuthException', code: 1 } },
      });
    };
    const publishes = publishCalls().length;
    await expect(h.runJob(post)).rejects.toThrow(/unknown error/);
    expect(await h.runJob(post, 2)).toBe('published');
    const [a, b] = t.posts.slice(-2);
    expect([a!.text, b!.text]).toEqual(['Part one', 'Part two']);
    expect(b!.repliedTo).toBe(a!.id);
    expect(publishCalls().length).toBe(publishes + 2);
    expect((await h.row(post.id)).external_post_id).toBe(a!.id);
  });

  for (const asPost of [false, true])
    it(`reads back a post whose publish answer was lost, not publishing it again${asPost ? ' (its container answering as the post)' : ''}`, async () => {
      const { key } = await h.connectBrand();
      const body = `Lost answer ${asPost}`;
      const post = await h.schedule(key, { body });
      t.losePublishAnswer = {
        status: 502,
        body: { error: { message: 'Bad gateway', type: 'OAuthException', code: 2 } },
      };
      t.publishedAnswersAsPost = asPost;
      try {
        expect(await h.runJob(post)).toBe('published');
      } finally {
        t.publishedAnswersAsPost = false;
      }
      const made = t.posts.filter((p) => p.text === body);
      expect(made).toHaveLength(1);
      expect((await h.row(post.id)).external_post_id).toBe(made[0]!.id);
      expect(t.republished).toEqual([]);
    });

  /** A post of the account's with `text`, made `agoMs` ago, as another client would make it. */
  const otherPost = (text: string, agoMs: number) => {
    const id = t.nextId();
    t.posts.push({
      id,
      owner: USER,
      container: t.nextId(),
      text,
      mediaType: 'TEXT_POST',
      timestamp: new Date(Date.now() - agoMs).toISOString().replace(/\.\d{3}Z$/, '+0000'),
      permalink: `https://www.threads.com/@brand.studio/post/C${id.slice(-8)}`,
      repliedTo: undefined,
      children: [],
    });
  };
  const loseNextPublishAnswer = () => {
    t.losePublishAnswer = {
      status: 502,
      body: { error: { message: 'Bad gateway', type: 'OAuthException', code: 2 } },
    };
  };

  it('a container that claims to be published before this publication published it is published, never read back to an older post', async () => {
    const { key } = await h.connectBrand();
    const body = 'Claimed already';
    // The account's own post of an hour ago, with the same text.
    t.posts.push({
      id: '17900000000000001',
      owner: USER,
      container: '17900000000000002',
      text: body,
      mediaType: 'TEXT_POST',
      timestamp: new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+0000'),
      permalink: 'https://www.threads.com/@brand.studio/post/Cold',
      repliedTo: undefined,
      children: [],
    });
    const post = await h.schedule(key, { body });
    // The container's first status read answers as a post would (code 100: no status field).
    t.answerNext(`GET /v1.0/${t.nextId()}`, {
      status: 400,
      body: {
        error: {
          message: 'Tried accessing nonexisting field (status)',
          type: 'OAuthException',
          code: 100,
        },
      },
    });
    // Publishing it is asked (the container may not be ready yet: the next attempt then is).
    let outcome = await h.runJob(post);
    if (outcome === 'retrying') outcome = await h.runJob(post, 2);
    expect(outcome).toBe('published');
    const external = (await h.row(post.id)).external_post_id;
    expect(external).not.toBe('17900000000000001');
    expect(t.posts.find((p) => p.id === external)?.text).toBe(body);
    expect(publishCalls().length).toBeGreaterThan(0);
  });

  it("takes a permalink only on Threads' own hosts", async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Permalink elsewhere' });
    t.answerNext(`GET /v1.0/${BigInt(t.nextId()) + 1n}`, {
      status: 200,
      body: { id: String(BigInt(t.nextId()) + 1n), permalink: 'https://evil.example/phish' },
    });
    expect(await h.runJob(post)).toBe('published');
    expect((await h.row(post.id)).permalink_url).toBeNull();
  });

  it('reads back the post this publication made, not an older one of the account with the same text', async () => {
    const { key } = await h.connectBrand();
    const body = 'Said again a minute later';
    otherPost(body, 90_000);
    const post = await h.schedule(key, { body });
    loseNextPublishAnswer();
    expect(await h.runJob(post)).toBe('published');
    const made = t.posts.filter((p) => p.text === body);
    expect(made).toHaveLength(2);
    expect((await h.row(post.id)).external_post_id).toBe(made[1]!.id);
  });

  it('fails, saying the post may exist, when two posts with its text were made since the publish call', async () => {
    const { key } = await h.connectBrand();
    const body = 'Posted twice at once';
    const post = await h.schedule(key, { body });
    t.onPublish = () => {
      t.onPublish = undefined;
      otherPost(body, 0);
    };
    loseNextPublishAnswer();
    expect(await h.runJob(post)).toBe('failed');
    const row = await h.row(post.id);
    expect(row.external_post_id).toBeNull();
    expect(row.error).toMatch(/Threads shows 2 posts with this text .* check the account/);
    expect(t.republished).toEqual([]);
  });

  it("reads a thread's later part back from the account's replies when its answer was lost", async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { kind: 'thread', body: 'Root part\n---\nReply part' });
    // The second publish (the reply's) makes the post and answers a 500.
    t.onPublish = (made) => {
      if (!made.repliedTo) return;
      t.onPublish = undefined;
      t.losePublishAnswer = { status: 500, body: { error: { message: 'Oops', code: 1 } } };
    };
    expect(await h.runJob(post)).toBe('published');
    const [root, reply] = t.posts.slice(-2);
    expect([root!.text, reply!.text]).toEqual(['Root part', 'Reply part']);
    expect(reply!.repliedTo).toBe(root!.id);
    expect(t.received.some((r) => r.method === 'GET' && r.path === `/v1.0/${USER}/replies`)).toBe(
      true,
    );
    expect(t.republished).toEqual([]);
  });

  it('resumes with the same container when an attempt ended while it was processing', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Slow to process' });
    t.processingReads = 1_000_000;
    const slow = threadsHarness(server, t, KEY, { publicMedia: media, pollBoundMs: 100 });
    try {
      expect(await slow.runJob(post)).toBe('retrying');
    } finally {
      t.processingReads = 1;
    }
    const made = [...t.containers.values()].filter((c) => c.params.text === 'Slow to process');
    expect(made).toHaveLength(1);
    expect((await retryJobOf(server.pool, post.id))?.max_attempts).toBe(4);
    made[0]!.readsLeft = 0;
    expect(await h.runJob(post, 2)).toBe('published');
    expect(
      [...t.containers.values()].filter((c) => c.params.text === 'Slow to process'),
    ).toHaveLength(1);
    expect(t.posts.at(-1)!.container).toBe(made[0]!.id);
  });

  it('fails, naming PUBLIC_BASE_URL and quoting Threads, media it could not fetch', async () => {
    const { key } = await h.connectBrand();
    const asset = await uploadImage(server, key, await solidPng({ width: 8, height: 8 }, '#abc'));
    media.refuse(asset.id);
    const post = await h.schedule(key, { body: 'Unfetchable', asset_ids: [asset.id] });
    expect(await h.runJob(post)).toBe('failed');
    const { error } = await h.row(post.id);
    expect(error).toContain('FAILED_DOWNLOADING_IMAGE');
    expect(error).toContain('PUBLIC_BASE_URL');
  });

  it('fails a media post at once when the worker has no public media addresses', async () => {
    const { key } = await h.connectBrand();
    const asset = await uploadImage(server, key, await solidPng({ width: 8, height: 8 }, '#def'));
    const post = await h.schedule(key, { body: 'No addresses', asset_ids: [asset.id] });
    const bare = threadsHarness(server, t, KEY);
    const calls = t.received.length;
    expect(await bare.runJob(post)).toBe('failed');
    expect((await h.row(post.id)).error).toMatch(/PUBLIC_BASE_URL/);
    expect(t.received.length).toBe(calls);
  });
});

describe("Threads' publishing quota", () => {
  it('a full quota reschedules at no attempt cost, with the reason on the post, and publishes later', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Over quota' });
    const publishes = publishCalls().length;
    t.quota.posts = t.posts.filter((p) => !p.repliedTo).length;
    try {
      expect(await h.runJob(post)).toBe('retrying');
    } finally {
      t.quota.posts = 250;
    }
    expect(publishCalls().length).toBe(publishes);
    const row = await h.row(post.id);
    expect(row.status).toBe('publishing');
    expect(row.error).toMatch(/^Threads' publishing quota for this account is full/);
    const job = await retryJobOf(server.pool, post.id);
    expect(job?.max_attempts).toBe(5);
    expect(new Date(job!.run_at).getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(await h.runJob(post)).toBe('published');
    expect(await h.row(post.id)).toMatchObject({ status: 'published', error: null });
  });

  it('a quota answer that is not the documented one is left to Threads, which enforces it', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Quota unreadable' });
    t.answerNext(`GET /v1.0/${USER}/threads_publishing_limit`, {
      status: 200,
      body: { data: [{ quota_usage: 'lots' }] },
    });
    expect(await h.runJob(post)).toBe('published');
  });

  it('a throttle (Graph code 4) waits until the usage header says access comes back', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Throttled' });
    t.answerNext(`POST /v1.0/${USER}/threads`, {
      status: 400,
      body: {
        error: { message: 'Application request limit reached', type: 'OAuthException', code: 4 },
      },
      headers: {
        'x-business-use-case-usage': JSON.stringify({
          '123': [{ type: 'threads', call_count: 100, estimated_time_to_regain_access: 17 }],
        }),
      },
    });
    expect(await h.runJob(post)).toBe('retrying');
    const job = await retryJobOf(server.pool, post.id);
    const wait = new Date(job!.run_at).getTime() - Date.now();
    expect(wait).toBeGreaterThan(16 * 60_000);
    expect(wait).toBeLessThan(18 * 60_000);
  });
});

describe('Threads tokens', () => {
  it('a token about to expire is extended once, stored, and used', async () => {
    const { key, connectedId, token } = await h.connectBrand({
      ageS: 59 * 86_400,
      expiresInS: 120,
    });
    const post = await h.schedule(key, { body: 'Fresh token' });
    const refreshes = () => t.received.filter((r) => r.path === '/refresh_access_token').length;
    const before = refreshes();
    expect(await h.runJob(post)).toBe('published');
    expect(refreshes()).toBe(before + 1);
    const stored = (await h.connection(connectedId)).credentials;
    expect(stored.access_token).not.toBe(token);
    expect(t.received.at(-1)!.query.access_token).toBe(stored.access_token);
  });

  it('a token Threads says expired (190) is refreshed once and the call made again', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Refused once' });
    t.answerNext(`POST /v1.0/${USER}/threads`, {
      status: 401,
      body: {
        error: {
          message: 'Error validating access token: Session has expired',
          type: 'OAuthException',
          code: 190,
          error_subcode: 463,
        },
      },
    });
    const before = t.received.filter((r) => r.path === '/refresh_access_token').length;
    expect(await h.runJob(post)).toBe('published');
    expect(t.received.filter((r) => r.path === '/refresh_access_token').length).toBe(before + 1);
  });

  it('a revoked token ends the connection in needs_reconnect and fails the post', async () => {
    const { key, connectedId } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Revoked' });
    t.revoke();
    expect(await h.runJob(post)).toBe('failed');
    expect((await h.connection(connectedId)).status).toBe('needs_reconnect');
    expect((await h.row(post.id)).error).toMatch(/reconnect/i);
  });
});

describe('hostile answers never mark a Threads post published without a real id', () => {
  const hostile: [string, string, { status: number; body?: unknown; raw?: string }][] = [
    ['a container answer that is not JSON', 'threads', { status: 200, raw: '<html>oops</html>' }],
    ['a container answer without an id', 'threads', { status: 200, body: { success: true } }],
    ['a publish answer without an id', 'threads_publish', { status: 200, body: {} }],
    [
      'a publish answer with a made-up id',
      'threads_publish',
      { status: 200, body: { id: 'x; drop' } },
    ],
    [
      'a huge publish answer',
      'threads_publish',
      { status: 200, raw: `{"id":"1","pad":"${'a'.repeat(2 * 1024 * 1024)}"}` },
    ],
  ];
  for (const [what, edge, answer] of hostile)
    it(`${what}: the post fails and says so`, async () => {
      const { key } = await h.connectBrand();
      // A new brand is connected each time; every earlier one was revoked or is still live.
      const post = await h.schedule(key, { body: `Hostile: ${what}` });
      t.answerNext(
        `POST /v1.0/${USER}/${edge}`,
        'raw' in answer && answer.raw !== undefined
          ? { status: answer.status, raw: answer.raw }
          : { status: answer.status, body: answer.body },
      );
      const outcome = await h.runJob(post, 5).catch((e: Error) => e);
      expect(outcome).toBe('failed');
      const row = await h.row(post.id);
      expect(row.status).toBe('failed');
      expect(row.external_post_id).toBeNull();
      expect(t.posts.some((p) => p.text === `Hostile: ${what}`)).toBe(false);
    });

  it('a container status that is not one Meta documents fails the post', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Odd status' });
    t.answerNext(`GET /v1.0/${t.nextId()}`, { status: 200, body: { status: 'ALMOST' } });
    expect(await h.runJob(post, 5)).toBe('failed');
    expect((await h.row(post.id)).error).toMatch(/without the container's status/);
    expect(t.posts.some((p) => p.text === 'Odd status')).toBe(false);
  });
});

describe('Threads insights', () => {
  it('reads views, likes, replies, reposts and quotes of published posts', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Counted' });
    expect(await h.runJob(post)).toBe('published');
    const id = (await h.row(post.id)).external_post_id;
    const connector = threadsConnector({ outbound: outboundPolicy(server.config), apiUrl: t.url });
    const account = {
      handle: '@brand.studio',
      credentials: { access_token: t.longLived(), user_id: USER },
      saveCredentials: async () => {},
    };
    const counts = await connector.postMetrics!(account, [id, '17000000000000099']);
    expect(counts.get(id)).toEqual({ views: 3, likes: 6, replies: 9, reposts: 12, quotes: 15 });
    expect(counts.has('17000000000000099')).toBe(false);
    t.insightsScope = false;
    try {
      expect((await connector.postMetrics!(account, [id])).size).toBe(0);
    } finally {
      t.insightsScope = true;
    }
    const recent = await connector.recentPosts!(account, 5);
    expect(recent[0]).toMatchObject({ id: t.posts.filter((p) => !p.repliedTo).at(-1)!.id });
  });
});
