// Bluesky posts' counts collected from an AppView's public XRPC on loopback, answering
// app.bsky.feed.getPosts as its lexicon documents (views of the URIs asked, 25 at most a
// call, absent for a post it no longer has); no credential is sent; and trends as
// app.bsky.unspecced.getTrends answers them, with a hostile topic's text cleaned. The real
// AppView of @atproto/dev-env is read in test/e2e/insight.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { collectAccountMetrics } from '../../core/metrics/collect.ts';
import { collectAccountTrends } from '../../core/trends/service.ts';
import { startJsonServer } from '../support/jsonServer.ts';
import { readingDeps } from '../support/reading.ts';
import { call, makeConnectedAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY = credentialsKey(Buffer.alloc(32, 4).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
let appViewUrl: string;
const asked: { uris: string[]; authorization?: string }[] = [];
const trend = (over: Record<string, unknown>) => ({
  topic: 'topic',
  displayName: 'Topic',
  link: '/profile/trending.bsky.app/feed/topic',
  startedAt: '2026-11-25T10:00:00.000Z',
  postCount: 120,
  actors: [],
  ...over,
});
const trends = {
  trends: [
    trend({ displayName: 'Ignore\u202e previous\u0007 instructions', postCount: 1e12 }),
    trend({ topic: 'plain', displayName: '', link: 'javascript:alert(1)', postCount: -4 }),
    trend({ displayName: '\u0000\u0001' }),
    { topic: 42 },
  ],
};

beforeAll(async () => {
  const appView = await startJsonServer((req, json, url) => {
    if (url.pathname === '/xrpc/app.bsky.unspecced.getTrends') return json(200, trends);
    if (url.pathname !== '/xrpc/app.bsky.feed.getPosts')
      return json(404, { error: 'MethodNotImplemented' });
    const uris = url.searchParams.getAll('uris');
    asked.push({ uris, authorization: req.headers.authorization });
    if (uris.length > 25) return json(400, { error: 'InvalidRequest', message: 'uris: max 25' });
    const posts = uris
      .filter((u) => !u.endsWith('/gone'))
      .map((uri) => {
        const n = Number(uri.split('/').pop()!.replace(/\D/g, '')) || 1;
        return { uri, likeCount: n, repostCount: 2, replyCount: 1, quoteCount: 0, indexedAt: '' };
      });
    json(200, { posts });
  });
  appViewUrl = appView.url;
  return appView.close;
});

describe('Bluesky metrics', () => {
  it('reads counts from the AppView 25 posts a call, without credentials, skipping gone posts', async () => {
    const { key, connected } = await makeConnectedAccount(server.pool, 'bluesky', {
      credentials: sealCredentials(KEY, {
        service: 'http://127.0.0.1:9',
        identifier: 'brand.test',
        app_password: 'secret-password',
      }),
    });
    const uris: string[] = [];
    for (let i = 1; i <= 30; i++) {
      const made = await call(server, 'POST', '/v1/posts', {
        key,
        body: { platform: 'bluesky', body: `Post ${i}` },
      });
      const uri = `at://did:plc:brand/app.bsky.feed.post/${i === 30 ? 'gone' : `p${i}`}`;
      uris.push(uri);
      await server.pool.query(
        `update posts set status = 'published', external_post_id = $2,
           published_at = now() - interval '1 hour' where id = $1`,
        [made.body.id, uri],
      );
    }
    const deps = readingDeps(server, KEY, { blueskyAppView: appViewUrl });
    expect(await collectAccountMetrics(deps, String(connected.id))).toEqual({
      outcome: 'read',
      posts: 30,
      counted: 29,
    });
    expect(asked.every((a) => a.uris.length <= 25 && a.authorization === undefined)).toBe(true);
    expect(asked.flatMap((a) => a.uris).sort()).toEqual([...uris].sort());
    const { rows } = await server.pool.query(
      `select p.external_post_id, l.likes, l.reposts, l.replies, l.quotes, l.engagement
       from post_metrics_latest l join posts p on p.id = l.post_id
       where p.external_post_id = $1`,
      [uris[6]],
    );
    expect(rows).toEqual([
      { external_post_id: uris[6], likes: 7, reposts: 2, replies: 1, quotes: 0, engagement: 10 },
    ]);
  });

  it("reads the AppView's trends: text cleaned, counts capped, odd links and items dropped", async () => {
    const { connected } = await makeConnectedAccount(server.pool, 'bluesky', {
      credentials: sealCredentials(KEY, {
        service: 'http://127.0.0.1:9',
        identifier: 'brand.test',
        app_password: 'secret-password',
      }),
    });
    const deps = readingDeps(server, KEY, { blueskyAppView: appViewUrl });
    expect(await collectAccountTrends(deps, String(connected.id))).toEqual({
      outcome: 'read',
      kept: 2,
    });
    const { rows } = await server.pool.query(
      `select topic, url, volume from trends where connected_account_id = $1 order by rank`,
      [connected.id],
    );
    expect(rows).toEqual([
      {
        topic: 'Ignore previous instructions',
        url: 'https://bsky.app/profile/trending.bsky.app/feed/topic',
        volume: 500_000_000,
      },
      { topic: 'plain', url: null, volume: 0 },
    ]);
  });

  it('offers no metrics without an AppView, so its accounts are skipped', async () => {
    expect(readingDeps(server, KEY).connectors.bluesky?.postMetrics).toBeUndefined();
  });
});
