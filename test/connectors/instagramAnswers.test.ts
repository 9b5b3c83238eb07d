// Hostile answers from Instagram never mark a post published without a real media id: a
// creation, a status reading, a limit reading or a publish answered with something other than
// what Meta documents (not JSON, a field missing, an id not of Meta's form, a huge body) fails
// the post, publishes nothing Instagram did not publish, and says what was wrong. And the
// counts read for insight, with and without the insights permission.

import { describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { MAX_COUNT } from '../../core/connectors/readings.ts';
import { collectAccountMetrics } from '../../core/metrics/collect.ts';
import { useInstagramHarness } from '../support/platforms/instagramHarness.ts';
import { META_USER } from '../support/platforms/metaGraph.ts';
import type { Answer, RawAnswer } from '../support/platforms/standIn.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const KEY = credentialsKey(Buffer.alloc(32, 3).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
const h = useInstagramHarness(server, KEY);

const USER = `/v25.0/${META_USER.id}`;
const HOSTILE: [string, Answer | RawAnswer][] = [
  ['not JSON', { status: 200, raw: '<html>Sorry, something went wrong</html>' }],
  ['no id', { status: 200, body: { success: true } }],
  ['an id not of Meta form', { status: 200, body: { id: '../../me' } }],
  ['an empty id', { status: 200, body: { id: '' } }],
  ['a huge body', { status: 200, raw: `{"id":"1","pad":"${'x'.repeat(2 * 1024 * 1024)}"}` }],
];

async function imagePost(body: string) {
  const { key } = await h.connectBrand();
  const asset = await uploadImage(server, key, await solidPng({ width: 30, height: 30 }, '#222'));
  return h.schedule(key, { body, asset_ids: [asset.id] });
}

async function expectFailedUnpublished(post: { id: string; at: string }, caption: string) {
  expect(await h.runJob(post, 5)).toBe('failed');
  const row = await h.row(post.id);
  expect(row.status).toBe('failed');
  expect(row.external_post_id).toBeNull();
  expect(row.error).toMatch(/^Instagram /);
  expect(h.ig.media.filter((m) => m.caption === caption)).toEqual([]);
  return row.error as string;
}

describe('a hostile answer to the creation of the container', () => {
  for (const [what, answer] of HOSTILE)
    it(`(${what}) fails the post, publishing nothing`, async () => {
      const post = await imagePost(`Creation ${what}`);
      h.ig.answerNext(`POST ${USER}/media`, answer);
      const error = await expectFailedUnpublished(post, `Creation ${what}`);
      expect(error).toMatch(/POST \/v25\.0\/\d+\/media|more than 1 MB/);
    });
});

describe('a hostile answer to the status reading', () => {
  const answers: [string, Answer | RawAnswer][] = [
    ...HOSTILE,
    ['an unknown status', { status: 200, body: { status_code: 'DONE', id: '1' } }],
  ];
  for (const [what, answer] of answers)
    it(`(${what}) fails the post, publishing nothing`, async () => {
      const post = await imagePost(`Status ${what}`);
      h.ig.answerNext(`GET /v25.0/${h.ig.peekNextId()}`, answer);
      await expectFailedUnpublished(post, `Status ${what}`);
    });
});

describe('a hostile answer to the publishing limit', () => {
  it('is left to Instagram, which enforces the limit on media_publish', async () => {
    const post = await imagePost('Limit garbled');
    h.ig.answerNext(`GET ${USER}/content_publishing_limit`, {
      status: 200,
      body: { data: [{ quota_usage: 'lots' }] },
    });
    expect(await h.runJob(post)).toBe('published');
    expect(h.ig.media.filter((m) => m.caption === 'Limit garbled')).toHaveLength(1);
  });

  it("media_publish's own limit refusal (2207042) waits for room, publishing nothing", async () => {
    const post = await imagePost('Limit on publish');
    h.ig.answerNext(`POST ${USER}/media_publish`, {
      status: 400,
      body: {
        error: {
          message: 'Application request limit reached',
          type: 'OAuthException',
          code: 9,
          error_subcode: 2207042,
          is_transient: false,
          fbtrace_id: 'AbCdEf123',
        },
      },
    });
    expect(await h.runJob(post)).toBe('retrying');
    const row = await h.row(post.id);
    expect(row.status).toBe('publishing');
    expect(row.error).toMatch(/^Instagram's publishing limit for this account is reached/);
    expect(h.ig.media.filter((m) => m.caption === 'Limit on publish')).toEqual([]);
  });
});

describe('a container Instagram says is not ready for publishing', () => {
  it('(9007, subcode 2207027) is published by the next attempt, once', async () => {
    const post = await imagePost('Not ready yet');
    h.ig.answerNext(`POST ${USER}/media_publish`, {
      status: 400,
      body: {
        error: {
          message: 'Media ID is not available',
          type: 'OAuthException',
          code: 9007,
          error_subcode: 2207027,
          is_transient: false,
          error_user_title: 'Media Not Ready For Publishing',
          error_user_msg: 'The media is not ready for publishing, please wait for a moment',
          fbtrace_id: 'AbCdEf123',
        },
      },
    });
    expect(await h.runJob(post)).toBe('retrying');
    expect(h.ig.media.filter((m) => m.caption === 'Not ready yet')).toEqual([]);
    expect(await h.runJob(post, 2)).toBe('published');
    expect(h.ig.media.filter((m) => m.caption === 'Not ready yet')).toHaveLength(1);
  });
});

describe('a hostile answer to the publish', () => {
  for (const [what, answer] of HOSTILE)
    it(`(${what}) without publishing fails the post: the container is still FINISHED`, async () => {
      const post = await imagePost(`Publish ${what}`);
      h.ig.answerNext(`POST ${USER}/media_publish`, answer);
      const error = await expectFailedUnpublished(post, `Publish ${what}`);
      expect(error).toMatch(/the container is FINISHED|more than 1 MB/);
    });

  it("a Graph error in a 200 answer is Instagram's refusal, not a publication", async () => {
    const post = await imagePost('Error in a 200');
    h.ig.answerNext(`POST ${USER}/media_publish`, {
      status: 200,
      body: { error: { message: 'Invalid parameter', type: 'OAuthException', code: 100 } },
    });
    const error = await expectFailedUnpublished(post, 'Error in a 200');
    expect(error).toContain('Invalid parameter');
  });
});

describe('metrics', () => {
  async function published() {
    const { key, token } = await h.connectBrand();
    const asset = await uploadImage(server, key, await solidPng({ width: 30, height: 30 }, '#333'));
    const post = await h.schedule(key, { body: 'Counted', asset_ids: [asset.id] });
    expect(await h.runJob(post)).toBe('published');
    const media = h.ig.media.at(-1)!;
    Object.assign(media, { likes: 12, comments: 3, shares: 2, views: 140 });
    const access = {
      handle: `@${META_USER.username}`,
      credentials: { access_token: token, user_id: META_USER.id },
      saveCredentials: async () => {},
    };
    return { media, access };
  }

  it('reads views, likes, comments and shares from insights; unknown ids are left out', async () => {
    const { media, access } = await published();
    const counts = await h.connector.postMetrics!(access, [
      media.id,
      '17999999999999999',
      'x/../y',
    ]);
    expect([...counts]).toEqual([
      [media.id, { likes: 12, reposts: 2, replies: 3, quotes: null, views: 140 }],
    ]);
    const read = h.ig.received.filter((r) => r.path === `/v25.0/${media.id}/insights`).at(-1)!;
    expect(read.query.metric).toBe('views,likes,comments,shares');
  });

  it("caps counts of 2,000,000,000 at MAX_COUNT in the collection, failing nothing, and keeps the other post's", async () => {
    const { key, connectedId } = await h.connectBrand();
    const ids: string[] = [];
    for (const body of ['Huge', 'Modest']) {
      const asset = await uploadImage(
        server,
        key,
        await solidPng({ width: 30, height: 30 }, '#444'),
      );
      const post = await h.schedule(key, { body, asset_ids: [asset.id] });
      expect(await h.runJob(post)).toBe('published');
      ids.push(post.id);
    }
    const huge = 2_000_000_000;
    Object.assign(h.ig.media.at(-2)!, { likes: huge, comments: huge, shares: huge, views: huge });
    Object.assign(h.ig.media.at(-1)!, { likes: 7, comments: 2, shares: 1, views: 90 });
    const deps = { pool: server.pool, connectors: { instagram: h.connector }, credentialsKey: KEY };
    expect(await collectAccountMetrics(deps, connectedId)).toEqual({
      outcome: 'read',
      posts: 2,
      counted: 2,
    });
    const { rows } = await server.pool.query(
      `select post_id::text as id, likes, reposts, replies, quotes, views::int as views
       from post_metrics_latest where post_id = any($1::bigint[]) order by post_id`,
      [ids],
    );
    expect(rows).toEqual([
      {
        id: ids[0],
        likes: MAX_COUNT,
        reposts: MAX_COUNT,
        replies: MAX_COUNT,
        quotes: null,
        views: MAX_COUNT,
      },
      { id: ids[1], likes: 7, reposts: 1, replies: 2, quotes: null, views: 90 },
    ]);
  });

  it('without the insights permission, reads like_count and comments_count instead', async () => {
    const { media, access } = await published();
    h.ig.insightsAllowed = false;
    try {
      const counts = await h.connector.postMetrics!(access, [media.id]);
      expect(counts.get(media.id)).toEqual({
        likes: 12,
        reposts: 0,
        replies: 3,
        quotes: null,
        views: null,
      });
    } finally {
      h.ig.insightsAllowed = true;
    }
  });
});
