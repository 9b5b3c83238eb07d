// Insight end to end against the real Bluesky AppView (@atproto/dev-env's, on a database of
// the run's Postgres, subscribed to the PDS's firehose): a post published by the real worker,
// liked, reposted and replied to by other PDS accounts, is counted by the AppView and read by
// a collection run, and get_analytics (through the MCP SDK's client) shows those counts. A
// competitor profile's posts are read with the AppView's counts (getAuthorFeed, reposts and
// replies left out), and trends are skipped, not failed, by an AppView without a topics
// service.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchCompetitor } from '../../core/competitors/watch.ts';
import { startCollections } from '../../core/metrics/collect.ts';
import { collectAccountTrends } from '../../core/trends/service.ts';
import { startWorker, type WorkerRunner } from '../../workers/index.ts';
import { emptyDatabase } from '../support/db.ts';
import { connectMcp } from '../support/mcpClient.ts';
import { readingDeps } from '../support/reading.ts';
import { call, login, makeKey, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import {
  connectedBrand,
  ENV,
  KEY,
  type Network,
  type PdsAccount,
  schedule,
  settled,
  startNetwork,
  workerDeps,
} from './network.ts';

let appViewDb: Awaited<ReturnType<typeof emptyDatabase>>;
let net: Network;
let server: TestServer;
let worker: WorkerRunner;
let mcp: Client | undefined;

beforeAll(async () => {
  appViewDb = await emptyDatabase();
  net = await startNetwork({ appViewDatabaseUrl: appViewDb.url });
  server = await startServer({ env: ENV });
  worker = await startWorker({ ...workerDeps(server, net), concurrency: 2 });
});
afterAll(async () => {
  await mcp?.close();
  await worker?.stop();
  await server?.close();
  net?.close();
  // The AppView's process lets go of its connections as it stops; force closes the rest.
  await appViewDb?.drop();
});

const deps = () => readingDeps(server, KEY, { blueskyAppView: net.appview });
const now = () => new Date().toISOString();

/** Writes a record of `collection` in the account's repository; answers its strong ref. */
const create = (who: PdsAccount, collection: string, record: Record<string, unknown>) =>
  net.xrpc('com.atproto.repo.createRecord', {
    token: who.accessJwt,
    body: { repo: who.did, collection, record: { $type: collection, createdAt: now(), ...record } },
  }) as Promise<{ uri: string; cid: string }>;

/** The AppView's view of a post, once `ready` holds for it (indexing follows the firehose). */
const indexed = (uri: string, ready: (p: any) => boolean) =>
  waitFor(
    async () => {
      const { posts } = await net.appviewGet('app.bsky.feed.getPosts', { query: { uris: uri } });
      return posts[0] && ready(posts[0]) && posts[0];
    },
    { timeoutMs: 30_000, what: `the AppView to index ${uri}` },
  );

describe('insight from the real AppView', () => {
  let brand: Awaited<ReturnType<typeof connectedBrand>>;
  let fans: PdsAccount[];

  beforeAll(async () => {
    brand = await connectedBrand(server, net, 'brand');
    fans = [await net.account('bob'), await net.account('carol'), await net.account('dave')];
  });

  it('shows likes, reposts and replies of other accounts in get_analytics after a collection', async () => {
    const made = await schedule(server, brand.key, { body: 'How did this one do?' });
    expect(made.status).toBe(201);
    const row = await settled(server, made.body.id);
    expect(row.status, row.error).toBe('published');
    const ours = (await net.posts(brand.account.did)).find((r) => r.uri === row.external_post_id)!;
    const subject = { uri: ours.uri, cid: ours.cid };

    const [bob, carol, dave] = fans as [PdsAccount, PdsAccount, PdsAccount];
    await create(bob, 'app.bsky.feed.like', { subject });
    await create(carol, 'app.bsky.feed.like', { subject });
    await create(bob, 'app.bsky.feed.repost', { subject });
    await create(dave, 'app.bsky.feed.post', {
      text: 'Very well, it seems',
      reply: { root: subject, parent: subject },
    });
    await indexed(ours.uri, (p) => p.likeCount === 2 && p.repostCount === 1 && p.replyCount === 1);

    // Nothing is counted before a collection runs.
    const before = await server.pool.query('select 1 from post_metrics where post_id = $1', [
      row.id,
    ]);
    expect(before.rowCount).toBe(0);
    // The cron's part queues the account's collection; the running worker reads the AppView.
    expect(await startCollections(server.pool, deps().connectors)).toBeGreaterThanOrEqual(1);
    const counted = await waitFor(
      async () =>
        (await server.pool.query('select * from post_metrics where post_id = $1', [row.id]))
          .rows[0],
      { timeoutMs: 30_000, what: 'the collection run' },
    );
    expect(counted).toMatchObject({ likes: 2, reposts: 1, replies: 1 });

    const key = await makeKey(server.pool, brand.acct.accountId, ['read']);
    mcp = await connectMcp(server, key, 'e2e-insight');
    const res = (await mcp.callTool({ name: 'get_analytics', arguments: {} })) as {
      isError?: boolean;
      structuredContent?: any;
    };
    expect(res.isError).toBeFalsy();
    const analytics = res.structuredContent;
    expect(analytics.totals).toEqual({
      posts: 1,
      likes: 2,
      reposts: 1,
      replies: 1,
      engagement: 4,
    });
    expect(analytics.top_posts).toEqual([
      expect.objectContaining({
        post_id: row.id,
        permalink_url: row.permalink_url,
        likes: 2,
        reposts: 1,
        replies: 1,
      }),
    ]);
    expect(analytics.collected_at).toEqual(expect.any(String));
  });

  it("reads a competitor's own posts with the AppView's counts, not its reposts or replies", async () => {
    const rival = await net.account('rival');
    const [bob, carol] = fans as [PdsAccount, PdsAccount];
    const first = await create(rival, 'app.bsky.feed.post', { text: 'Our first post' });
    const second = await create(rival, 'app.bsky.feed.post', { text: 'Our second post' });
    await create(rival, 'app.bsky.feed.post', {
      text: 'a reply, not a post of the profile',
      reply: { root: first, parent: first },
    });
    const others = await create(bob, 'app.bsky.feed.post', { text: "bob's post" });
    await create(rival, 'app.bsky.feed.repost', { subject: others });
    await create(bob, 'app.bsky.feed.like', { subject: second });
    await create(carol, 'app.bsky.feed.like', { subject: second });
    await create(carol, 'app.bsky.feed.repost', { subject: second });
    await indexed(second.uri, (p) => p.likeCount === 2 && p.repostCount === 1);
    await waitFor(
      async () => {
        const { feed } = await net.appviewGet('app.bsky.feed.getAuthorFeed', {
          query: { actor: rival.did },
        });
        return feed.length === 4;
      },
      { what: "the AppView to index the rival's feed" },
    );

    const cookie = await login(server, brand.acct);
    const tracked = await call(server, 'POST', '/competitors', {
      body: { platform: 'bluesky', handle: `@${rival.handle}` },
      headers: { cookie },
    });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(201);
    expect(await watchCompetitor(deps(), tracked.body.id)).toEqual({
      outcome: 'read',
      read: 2,
      breakouts: 0,
    });
    const { rows } = await server.pool.query(
      `select external_id, caption, likes, reposts, replies, permalink from competitor_posts
       where competitor_id = $1 order by posted_at desc`,
      [tracked.body.id],
    );
    const rkey = (uri: string) => uri.split('/').pop();
    expect(rows).toEqual([
      {
        external_id: second.uri,
        caption: 'Our second post',
        likes: 2,
        reposts: 1,
        replies: 0,
        permalink: `https://bsky.app/profile/${rival.did}/post/${rkey(second.uri)}`,
      },
      {
        external_id: first.uri,
        caption: 'Our first post',
        likes: 0,
        reposts: 0,
        replies: 1,
        permalink: `https://bsky.app/profile/${rival.did}/post/${rkey(first.uri)}`,
      },
    ]);

    // A handle nobody has reads as no posts, not as a failure.
    const nobody = await call(server, 'POST', '/competitors', {
      body: { platform: 'bluesky', handle: 'nobody-here.test' },
      headers: { cookie },
    });
    expect(await watchCompetitor(deps(), nobody.body.id)).toEqual({
      outcome: 'read',
      read: 0,
      breakouts: 0,
    });
  });

  it('skips trends, not fails them, where the AppView has no topics service', async () => {
    expect(await collectAccountTrends(deps(), brand.connectedId)).toEqual({
      outcome: 'read',
      kept: 0,
    });
    const { rows } = await server.pool.query(
      'select status, last_error from connected_accounts where id = $1',
      [brand.connectedId],
    );
    expect(rows[0]).toEqual({ status: 'active', last_error: null });
  });
});
