// X answers that its documentation and its clients' reports allow, though the stand-in's
// default answers differ: each read as X means it, through the real publication job.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { rateLimitResetAt } from '../../core/connectors/http.ts';
import { xOAuthApp } from '../../core/connectors/oauth/x.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { retryJobOf } from '../support/jobs.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { standInApp, useXHarness, useXStandIn } from '../support/platforms/xHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const KEY = credentialsKey(Buffer.alloc(32, 9).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
const x = useXStandIn();
const h = useXHarness(server, x, KEY);
let clipDir: string;

beforeAll(() => {
  clipDir = mkdtempSync(path.join(os.tmpdir(), 'sps-x-conform-'));
});
afterAll(() => rmSync(clipDir, { recursive: true, force: true }));

describe("X's 403 for a duplicate, in v1.1's words", () => {
  it('"Status is a duplicate." (code 187) is read back as the post made, never a new one', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Duplicate in other words' });
    x.inject({ line: 'POST /2/tweets', when: 'after', answer: 'drop' });
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true });
    // The retry's reading misses the post (the timeline lags); X refuses the second POST.
    x.timelineLag = 1;
    x.inject({
      line: 'POST /2/tweets',
      answer: {
        status: 403,
        body: JSON.stringify({ errors: [{ code: 187, message: 'Status is a duplicate.' }] }),
      },
    });
    expect(await h.runJob(post, 2)).toBe('published');
    const made = x.tweets.filter((t) => t.sent === 'Duplicate in other words');
    expect(made).toHaveLength(1);
    expect((await h.row(post.id)).external_post_id).toBe(made[0]!.id);
  });
});

describe('STATUS answers that say less', () => {
  it('a STATUS answer without the media id still says how processing goes', async () => {
    const { key } = await h.connectBrand();
    const file = path.join(clipDir, 'noid.mp4');
    await makeTestClip(file, 1, { silent: true });
    const asset = await uploadMediaFile(server, key, file, 'noid.mp4');
    const post = await h.schedule(key, { body: 'Status without id', asset_ids: [asset.id] });
    x.statusOmits = ['id'];
    try {
      expect(await h.runJob(post)).toBe('published');
    } finally {
      x.statusOmits = [];
    }
    const id = (await h.row(post.id)).external_post_id;
    const made = x.tweets.find((t) => t.id === id)!;
    expect(made.mediaIds).toHaveLength(1);
    expect(x.media.get(made.mediaIds[0]!)!.state).toBe('succeeded');
  });

  it('a STATUS answer without processing_info once done is taken as processed', async () => {
    const { key } = await h.connectBrand();
    const file = path.join(clipDir, 'noinfo.mp4');
    await makeTestClip(file, 1, { silent: true });
    const asset = await uploadMediaFile(server, key, file, 'noinfo.mp4');
    const post = await h.schedule(key, { body: 'Status without info', asset_ids: [asset.id] });
    x.statusOmits = ['processing_info'];
    try {
      expect(await h.runJob(post)).toBe('published');
    } finally {
      x.statusOmits = [];
    }
  });
});

describe('answers with errors beside data', () => {
  it('an image post and a thread are published from the data, whatever the errors say', async () => {
    const { key } = await h.connectBrand();
    const asset = await uploadImage(server, key, await solidPng({ width: 6, height: 4 }, '#abc'));
    const image = await h.schedule(key, { body: 'Partial picture', asset_ids: [asset.id] });
    const thread = await h.schedule(key, { kind: 'thread', body: 'Partial one\n---\nPartial two' });
    x.errorsBesideData = true;
    try {
      expect(await h.runJob(image)).toBe('published');
      expect(await h.runJob(thread)).toBe('published');
    } finally {
      x.errorsBesideData = false;
    }
    const pictured = (await h.row(image.id)).external_post_id;
    expect(x.tweets.find((t) => t.id === pictured)!.mediaIds).toHaveLength(1);
    const root = (await h.row(thread.id)).external_post_id;
    expect(x.tweets.filter((t) => t.replyTo === root).map((t) => t.sent)).toEqual(['Partial two']);
  });
});

describe('a 5xx with an HTML body', () => {
  it('is retried, and the retry posts once', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Behind a proxy' });
    x.inject({
      line: 'POST /2/tweets',
      answer: {
        status: 502,
        body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
        headers: { 'content-type': 'text/html' },
      },
    });
    await expect(h.runJob(post, 1)).rejects.toMatchObject({ retryable: true, status: 502 });
    expect(await h.runJob(post, 2)).toBe('published');
    expect(x.tweets.filter((t) => t.sent === 'Behind a proxy')).toHaveLength(1);
  });
});

describe("a 429 from X's 24-hour caps", () => {
  it('waits for the spent 24-hour limit, not the 15-minute window that has room', () => {
    const now = 1_800_000_000_000;
    const headers = {
      'x-rate-limit-remaining': '42',
      'x-rate-limit-reset': '1800000600',
      'x-user-limit-24hour-remaining': '0',
      'x-user-limit-24hour-reset': '1800007200',
      'x-app-limit-24hour-remaining': '0',
      'x-app-limit-24hour-reset': '1800003600',
    };
    expect(rateLimitResetAt(headers)).toEqual(new Date(now + 7_200_000));
    expect(rateLimitResetAt({ ...headers, 'x-user-limit-24hour-remaining': '3' })).toEqual(
      new Date(now + 3_600_000),
    );
  });

  it('reschedules the publication at the 24-hour reset', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { body: 'Over the daily cap' });
    const reset = Math.floor(Date.now() / 1000) + 7200;
    x.inject({
      line: 'POST /2/tweets',
      answer: {
        status: 429,
        body: JSON.stringify({
          title: 'Too Many Requests',
          detail: 'Too Many Requests',
          status: 429,
        }),
        headers: {
          'x-user-limit-24hour-limit': '100',
          'x-user-limit-24hour-remaining': '0',
          'x-user-limit-24hour-reset': String(reset),
        },
      },
    });
    expect(await h.runJob(post, 1)).toBe('retrying');
    const next = await retryJobOf(server.pool, post.id);
    expect(next!.delay_ms).toBeGreaterThan(7_198_000);
    expect(next!.delay_ms).toBeLessThanOrEqual(7_200_000);
  });
});

describe("X's token answers", () => {
  it('an expires_in given as a numeric string still dates the access token', async () => {
    const app = standInApp(x);
    const policy = outboundPolicy(server.config);
    const { refresh_token } = x.issueTokens();
    x.inject({
      line: 'POST /2/oauth2/token',
      answer: {
        status: 200,
        body: JSON.stringify({
          token_type: 'bearer',
          expires_in: '7200',
          access_token: 'xat-stringly',
          scope: 'tweet.read tweet.write users.read media.write offline.access',
        }),
      },
    });
    const before = Date.now();
    const fresh = await xOAuthApp.refresh({ app, policy }, { access_token: 'old', refresh_token });
    expect(fresh.access_token).toBe('xat-stringly');
    // No refresh token in the answer: none is claimed (the connection keeps the stored one).
    expect(fresh.refresh_token).toBeUndefined();
    const at = Date.parse(fresh.expires_at!);
    expect(at).toBeGreaterThanOrEqual(before + 7_200_000);
    expect(at).toBeLessThan(Date.now() + 7_200_000 + 1000);
  });
});
