// LinkedIn answers that its documentation and third-party descriptions allow, though the
// stand-in's default answers differ: each read as LinkedIn means it, through the real
// publication job.
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { nextMidnightUtc } from '../../core/connectors/http.ts';
import { linkedinRefusal } from '../../core/connectors/linkedin/api.ts';
import { linkedinConnector } from '../../core/connectors/linkedin/index.ts';
import { linkedinOAuthApp } from '../../core/connectors/oauth/linkedin.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { platformApps } from '../../core/platformApps.ts';
import { publishScheduledPost } from '../../core/posts/publication.ts';
import { storageFor } from '../../core/storage/storage.ts';
import { hourAhead, retryJobOf } from '../support/jobs.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { type StandInLinkedIn, startStandInLinkedIn } from '../support/platforms/linkedin.ts';
import { call, makeConnectedAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const KEY = credentialsKey(Buffer.alloc(32, 5).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
let li: StandInLinkedIn;
let tmp: string;

beforeAll(async () => {
  li = await startStandInLinkedIn();
  li.videoPartBytes = 16 * 1024;
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sps-linkedin-conform-'));
});
afterAll(async () => {
  await li.close();
  rmSync(tmp, { recursive: true, force: true });
});

const connectors = () => ({
  linkedin: linkedinConnector({
    outbound: outboundPolicy(server.config),
    storage: storageFor(server.config),
    apiUrl: li.url,
    requestTimeoutMs: 5_000,
    mediaPoll: { intervalMs: 20, boundMs: 5_000 },
  }),
});

async function connectedMember() {
  const member = li.member();
  const made = await makeConnectedAccount(server.pool, 'linkedin', {
    handle: 'Ada Lovelace',
    scopes: ['read', 'publish', 'media'],
    credentials: sealCredentials(KEY, { access_token: member.accessToken, sub: member.sub }),
  });
  return { ...made, member };
}

async function schedule(key: string, body: Record<string, unknown>) {
  const res = await call(server, 'POST', '/v1/posts', {
    key,
    body: { platform: 'linkedin', schedule_at: hourAhead(), ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const postRow = async (id: string) =>
  (await server.pool.query('select * from posts where id = $1', [id])).rows[0];

/** One run of the publication job, as attempt `n` of 5 (the last, unless told). */
async function publish(id: string, n = 5) {
  const row = await postRow(id);
  return publishScheduledPost(
    server.pool,
    { connectors: connectors(), credentialsKey: KEY },
    { post_id: id, scheduled_for: row.scheduled_for.toISOString(), attempts_before: n - 1 },
    { number: n, max: 5, signal: new AbortController().signal },
  );
}

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
      const { key } = await connectedMember();
      const id = await schedule(key, { body: `URN in ${postIdIn}` });
      expect(await withStandIn({ postIdIn }, () => publish(id))).toBe('published');
      const made = li.posts.at(-1)!;
      expect(await postRow(id)).toMatchObject({
        status: 'published',
        external_post_id: made.urn,
        permalink_url: `https://www.linkedin.com/feed/update/${made.urn}/`,
      });
    });
});

describe('DUPLICATE_POST naming an activity', () => {
  it('records the activity LinkedIn names, on a retry, instead of posting again', async () => {
    const { key } = await connectedMember();
    const id = await schedule(key, { body: 'Named by its activity' });
    // The first run reached the POST (a 503 leaves it unknown whether LinkedIn made the post).
    li.overridePosts([(res: ServerResponse) => res.writeHead(503).end('{"status":503}')]);
    await expect(publish(id, 1)).rejects.toThrow(/LinkedIn answered 503/);
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
    expect(await publish(id, 2)).toBe('published');
    expect(await postRow(id)).toMatchObject({
      external_post_id: 'urn:li:activity:7141138937766391999',
      permalink_url: 'https://www.linkedin.com/feed/update/urn:li:activity:7141138937766391999/',
    });
  });
});

describe('media status reads as the Images page writes them', () => {
  it('an image whose status path takes the URN plain is waited for, then posted', async () => {
    const { key } = await connectedMember();
    const asset = await uploadImage(server, key, await solidPng({ width: 9, height: 7 }, '#135'));
    const id = await schedule(key, { body: 'Plain image path', asset_ids: [asset.id] });
    expect(await withStandIn({ urnPaths: 'plain' }, () => publish(id))).toBe('published');
    const urn = (li.posts.at(-1)!.content as { media: { id: string } }).media.id;
    expect(li.images.get(urn)).toMatchObject({ status: 'AVAILABLE' });
  });

  it('a video whose status path takes the URN plain is waited for until AVAILABLE', async () => {
    const { key } = await connectedMember();
    const file = path.join(tmp, 'plain.mp4');
    await makeTestClip(file, 1, { silent: true });
    const asset = await uploadMediaFile(server, key, file, 'plain.mp4');
    const id = await schedule(key, { body: 'Plain video path', asset_ids: [asset.id] });
    expect(await withStandIn({ urnPaths: 'plain' }, () => publish(id))).toBe('published');
    const urn = (li.posts.at(-1)!.content as { media: { id: string } }).media.id;
    expect(li.videos.get(urn)).toMatchObject({ status: 'AVAILABLE' });
  });

  it('an image answer without a status is posted without waiting', async () => {
    const { key } = await connectedMember();
    const asset = await uploadImage(server, key, await solidPng({ width: 5, height: 5 }, '#531'));
    const id = await schedule(key, { body: 'Image without status', asset_ids: [asset.id] });
    expect(await withStandIn({ imageStatusShown: false }, () => publish(id))).toBe('published');
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
    const { key } = await connectedMember();
    const id = await schedule(key, { body: 'Throttled with a Retry-After' });
    li.throttlePosts(1, { 'retry-after': '120' });
    expect(await publish(id, 1)).toBe('retrying');
    const next = await retryJobOf(server.pool, id);
    expect(next!.delay_ms).toBeGreaterThan(119_000);
    expect(next!.delay_ms).toBeLessThanOrEqual(120_000);
    expect(await publish(id, 2)).toBe('published');
    expect(li.posts.filter((p) => p.commentary === 'Throttled with a Retry-After')).toHaveLength(1);
  });
});

describe('/v2/userinfo without a name', () => {
  const identify = (access_token: string) =>
    linkedinOAuthApp.identify(
      {
        app: platformApps({ LINKEDIN_API_URL: li.url }).linkedin,
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
    const { key } = await connectedMember();
    const id = await schedule(key, { body: 'Behind a gateway' });
    li.overridePosts([
      (res: ServerResponse) =>
        res
          .writeHead(504, { 'content-type': 'text/html' })
          .end('<html><body>Gateway Timeout</body></html>'),
    ]);
    await expect(publish(id, 1)).rejects.toMatchObject({ retryable: true, status: 504 });
    expect(await publish(id, 2)).toBe('published');
    expect(li.posts.filter((p) => p.commentary === 'Behind a gateway')).toHaveLength(1);
  });
});

describe("LinkedIn's token answers", () => {
  it('an expires_in given as a numeric string still dates the token', async () => {
    const app = {
      ...platformApps({
        LINKEDIN_API_URL: li.url,
        LINKEDIN_OAUTH_URL: li.url,
        LINKEDIN_CLIENT_ID: li.clientId,
        LINKEDIN_CLIENT_SECRET: li.clientSecret,
      }).linkedin,
    };
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
