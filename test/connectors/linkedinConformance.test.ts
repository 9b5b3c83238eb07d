// LinkedIn answers that its documentation and third-party descriptions allow, though the
// stand-in's default answers differ: each read as LinkedIn means it, through the real
// publication job.
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { nextMidnightUtc } from '../../core/connectors/http.ts';
import { linkedinRefusal } from '../../core/connectors/linkedin/api.ts';
import { linkedinOAuthApp } from '../../core/connectors/oauth/linkedin.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { retryJobOf } from '../support/jobs.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import type { StandInLinkedIn } from '../support/platforms/linkedin.ts';
import {
  linkedinApp,
  useLinkedInHarness,
  useLinkedInStandIn,
} from '../support/platforms/linkedinHarness.ts';
import type { ScheduledPost } from '../support/platforms/publishingHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const KEY = credentialsKey(Buffer.alloc(32, 5).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
const li = useLinkedInStandIn({ videoPartBytes: 16 * 1024 });
const h = useLinkedInHarness(server, li, KEY);
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sps-linkedin-conform-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** One run of the publication job, as attempt `n` of 5 (the last, unless told). */
const publish = (post: ScheduledPost, n = 5) => h.runJob(post, n);

/** Runs `body` with the stand-in changed by `change`, then puts it back. */
async function withStandIn<T>(change: Partial<StandInLinkedIn>, body: () => Promise<T>) {
  const before = Object.fromEntries(
    Object.keys(change).map((k) => [k, li[k as keyof StandInLinkedIn]]),
  );
  Object.assign(li, change);
  try {
    return await body();
  } finally {
    Object.assign(li, before);
  }
}

describe("the created post's URN, wherever LinkedIn gives it", () => {
  for (const postIdIn of ['x-linkedin-id', 'encoded', 'body'] as const)
    it(`a 201 with the URN ${postIdIn === 'encoded' ? 'URL-encoded in x-restli-id' : `only in ${postIdIn}`} is published under it`, async () => {
      const { key } = await h.connectMember();
      const post = await h.schedule(key, { body: `URN in ${postIdIn}` });
      expect(await withStandIn({ postIdIn }, () => publish(post))).toBe('published');
      const made = li.posts.at(-1)!;
      expect(await h.row(post.id)).toMatchObject({
        status: 'published',
        external_post_id: made.urn,
        permalink_url: `https://www.linkedin.com/feed/update/${made.urn}/`,
      });
    });
});

describe('DUPLICATE_POST naming an activity', () => {
  it('records the activity LinkedIn names, on a retry, instead of posting again', async () => {
    const { key } = await h.connectMember();
    const post = await h.schedule(key, { body: 'Named by its activity' });
    // The first run reached the POST (a 503 leaves it unknown whether LinkedIn made the post).
    li.overridePosts([(res: ServerResponse) => res.writeHead(503).end('{"status":503}')]);
    await expect(publish(post, 1)).rejects.toThrow(/LinkedIn answered 503/);
    li.overridePosts([
      (res: ServerResponse) =>
        res.writeHead(422, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            message:
              'Unable to create post: Content is a duplicate of urn:li:activity:7141138937766391999',
            errorDetails: {
              inputErrors: [{ description: 'Duplicate post is detected', code: 'DUPLICATE_POST' }],
            },
            status: 422,
          }),
        ),
    ]);
    expect(await publish(post, 2)).toBe('published');
    expect(await h.row(post.id)).toMatchObject({
      external_post_id: 'urn:li:activity:7141138937766391999',
      permalink_url: 'https://www.linkedin.com/feed/update/urn:li:activity:7141138937766391999/',
    });
  });
});

describe('media status reads as the Images page writes them', () => {
  it('an image whose status path takes the URN plain is waited for, then posted', async () => {
    const { key } = await h.connectMember();
    const asset = await uploadImage(server, key, await solidPng({ width: 9, height: 7 }, '#135'));
    const post = await h.schedule(key, { body: 'Plain image path', asset_ids: [asset.id] });
    expect(await withStandIn({ urnPaths: 'plain' }, () => publish(post))).toBe('published');
    const urn = (li.posts.at(-1)!.content as { media: { id: string } }).media.id;
    expect(li.images.get(urn)).toMatchObject({ status: 'AVAILABLE' });
  });

  it('a video whose status path takes the URN plain is waited for until AVAILABLE', async () => {
    const { key } = await h.connectMember();
    const file = path.join(tmp, 'plain.mp4');
    await makeTestClip(file, 1, { silent: true });
    const asset = await uploadMediaFile(server, key, file, 'plain.mp4');
    const post = await h.schedule(key, { body: 'Plain video path', asset_ids: [asset.id] });
    expect(await withStandIn({ urnPaths: 'plain' }, () => publish(post))).toBe('published');
    const urn = (li.posts.at(-1)!.content as { media: { id: string } }).media.id;
    expect(li.videos.get(urn)).toMatchObject({ status: 'AVAILABLE' });
  });

  it('an image answer without a status is posted without waiting', async () => {
    const { key } = await h.connectMember();
    const asset = await uploadImage(server, key, await solidPng({ width: 5, height: 5 }, '#531'));
    const post = await h.schedule(key, { body: 'Image without status', asset_ids: [asset.id] });
    expect(await withStandIn({ imageStatusShown: false }, () => publish(post))).toBe('published');
  });
});

describe('a 429 that says when to come back', () => {
  it('without a Retry-After, carries the next midnight UTC as its reset', () => {
    const throttled = { status: 429, headers: {}, json: { status: 429, message: 'Throttled' } };
    expect(linkedinRefusal(throttled)).toMatchObject({
      retryable: true,
      retryAt: nextMidnightUtc(),
      retryAfterMs: undefined,
    });
    expect(linkedinRefusal({ ...throttled, headers: { 'retry-after': '120' } })).toMatchObject({
      retryAt: undefined,
      retryAfterMs: 120_000,
    });
  });

  it('is retried after its Retry-After rather than at midnight UTC', async () => {
    const { key } = await h.connectMember();
    const post = await h.schedule(key, { body: 'Throttled with a Retry-After' });
    li.throttlePosts(1, { 'retry-after': '120' });
    expect(await publish(post, 1)).toBe('retrying');
    const next = await retryJobOf(server.pool, post.id);
    expect(next!.delay_ms).toBeGreaterThan(119_000);
    expect(next!.delay_ms).toBeLessThanOrEqual(120_000);
    expect(await publish(post, 2)).toBe('published');
    expect(li.posts.filter((p) => p.commentary === 'Throttled with a Retry-After')).toHaveLength(1);
  });
});

describe('/v2/userinfo without a name', () => {
  const identify = (access_token: string) =>
    linkedinOAuthApp.identify(
      {
        app: linkedinApp(li),
        policy: outboundPolicy(server.config),
      },
      { access_token },
    );

  it('names the member by the given and family names, else by the member id', async () => {
    const named = li.member({ name: 'Grace Hopper' });
    const nameless = li.member();
    await withStandIn({ userinfoOmits: 'name' }, async () => {
      expect(await identify(named.accessToken)).toEqual({
        handle: 'Grace Hopper',
        fields: { sub: named.sub },
      });
    });
    await withStandIn({ userinfoOmits: 'names' }, async () => {
      expect(await identify(nameless.accessToken)).toEqual({
        handle: nameless.sub,
        fields: { sub: nameless.sub },
      });
    });
  });
});

describe('a 5xx with an HTML body', () => {
  it('is retried, and the retry posts once', async () => {
    const { key } = await h.connectMember();
    const post = await h.schedule(key, { body: 'Behind a gateway' });
    li.overridePosts([
      (res: ServerResponse) =>
        res
          .writeHead(504, { 'content-type': 'text/html' })
          .end('<html><body>Gateway Timeout</body></html>'),
    ]);
    await expect(publish(post, 1)).rejects.toMatchObject({ retryable: true, status: 504 });
    expect(await publish(post, 2)).toBe('published');
    expect(li.posts.filter((p) => p.commentary === 'Behind a gateway')).toHaveLength(1);
  });
});

describe("LinkedIn's token answers", () => {
  it('an expires_in given as a numeric string still dates the token', async () => {
    const app = linkedinApp(li);
    const member = li.member();
    const redirectUri = 'http://127.0.0.1/connect/linkedin/callback';
    const code = li.codeFor(member.sub, redirectUri);
    await withStandIn({ expiresAsString: true }, async () => {
      const before = Date.now();
      const tokens = await linkedinOAuthApp.exchangeCode(
        { app, policy: outboundPolicy(server.config) },
        { code, redirectUri },
      );
      const at = Date.parse(tokens.expires_at!);
      expect(at).toBeGreaterThanOrEqual(before + 60 * 86_400_000);
      expect(at).toBeLessThan(Date.now() + 60 * 86_400_000 + 1000);
    });
  });
});
