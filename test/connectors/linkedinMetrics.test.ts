// LinkedIn's counts of our posts through the metrics collection and Postgres, against the
// stand-in's post statistics (test/support/platforms/linkedinAnalytics.ts, written from
// LinkedIn's documentation): a member's posts by memberCreatorPostAnalytics, a Page's by
// organizationalEntityShareStatistics, nothing asked without the granted scope, a 403 leaving
// the account without counts, hostile answers counting nothing, and a 401 through the token
// layer.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { MAX_COUNT } from '../../core/connectors/readings.ts';
import { collectAccountMetrics } from '../../core/metrics/collect.ts';
import { connectMcp } from '../support/mcpClient.ts';
import type { LinkedInPostStats, Override } from '../support/platforms/linkedin.ts';
import { useLinkedInHarness, useLinkedInStandIn } from '../support/platforms/linkedinHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY = credentialsKey(Buffer.alloc(32, 6).toString('base64'));
const ORG = 'urn:li:organization:2414183';
const MEMBER_SCOPE = 'openid,profile,w_member_social,r_member_postAnalytics';
const PAGE_SCOPE = 'openid,profile,w_member_social,w_organization_social,rw_organization_admin';

const server = useServer({ env: LOOPBACK_OUTBOUND });
const li = useLinkedInStandIn();
const h = useLinkedInHarness(server, li, KEY);
const clients: Client[] = [];

// An answer a test put in place and no request took must not reach the next test.
afterEach(() => li.overrideAnalytics([]));
afterAll(async () => {
  for (const c of clients) await c.close();
});

/** What the collection job takes, with the connection layer's token refresh. */
const deps = () => ({
  pool: server.pool,
  connectors: { linkedin: h.connector },
  credentialsKey: KEY,
  oauth: h.oauth,
});

type Connection = {
  /** The scopes the connection stored with its tokens (LinkedIn's `scope`), if any. */
  stored?: string;
  /** What LinkedIn granted the member (default: what the stored scope says). */
  granted?: string[];
  organization?: string;
  partner?: boolean;
};

/** A brand connected to a new LinkedIn member, with `posts` published through the job. */
async function connectedWithPosts(c: Connection, posts: Partial<LinkedInPostStats>[]) {
  const { key, member, connectedId } = await h.connectMember({
    partner: c.partner,
    organization: c.organization,
    granted: c.granted ?? c.stored?.split(',') ?? ['openid', 'profile', 'w_member_social'],
    credentials: c.stored ? { scope: c.stored } : {},
  });
  if (c.organization) li.administer(member.sub, c.organization);
  const made: { id: string; urn: string }[] = [];
  for (const [i, stats] of posts.entries()) {
    const post = await h.schedule(key, { body: `Counted ${member.sub} ${i}` });
    expect(await h.runJob(post)).toBe('published');
    const published = li.posts.at(-1)!;
    published.stats = stats;
    made.push({ id: post.id, urn: published.urn });
  }
  return { key, member, connectedId, posts: made };
}

/** The latest counts kept for each post, by post id. */
async function kept(ids: string[]) {
  const { rows } = await server.pool.query(
    `select post_id::text as id, likes, reposts, replies, quotes, views::int as views
     from post_metrics_latest where post_id = any($1::bigint[])`,
    [ids],
  );
  return Object.fromEntries(rows.map(({ id, ...counts }) => [id, counts]));
}

const accountRow = async (id: string) => {
  const { status, last_error } = await h.connection(id);
  return { status, last_error };
};

const json =
  (status: number, body: unknown): Override =>
  (res) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe("a member's posts (memberCreatorPostAnalytics)", () => {
  it('keeps the counts LinkedIn gives and shows them in get_analytics', async () => {
    const { key, connectedId, posts } = await connectedWithPosts({ stored: MEMBER_SCOPE }, [
      { reactions: 12, comments: 3, reshares: 2, impressions: 480, membersReached: 300 },
      {},
    ]);
    const before = li.analyticsRequests.length;
    expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
      outcome: 'read',
      posts: 2,
      counted: 2,
    });
    expect(await kept(posts.map((p) => p.id))).toEqual({
      [posts[0]!.id]: { likes: 12, reposts: 2, replies: 3, quotes: null, views: 480 },
      [posts[1]!.id]: { likes: 0, reposts: 0, replies: 0, quotes: null, views: 0 },
    });
    // One call per post and metric, each post as Rest.li 2.0's encoded union.
    const asked = li.analyticsRequests.slice(before);
    expect(asked).toHaveLength(8);
    const entity = `entity=(share:${encodeURIComponent(posts[0]!.urn)})`;
    expect(
      asked.filter((r) => r.includes(entity)).map((r) => /queryType=(\w+)/.exec(r)?.[1]),
    ).toEqual(['REACTION', 'RESHARE', 'COMMENT', 'IMPRESSION']);
    expect(asked.every((r) => r.includes('q=entity') && r.includes('aggregation=TOTAL'))).toBe(
      true,
    );
    expect(li.headerFaults).toEqual([]);

    const client = await connectMcp(server, key, 'linkedin-metrics');
    clients.push(client);
    const res = (await client.callTool({
      name: 'get_analytics',
      arguments: { platform: 'linkedin' },
    })) as { isError?: boolean; structuredContent?: any };
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent.totals).toMatchObject({
      posts: 2,
      likes: 12,
      reposts: 2,
      replies: 3,
    });
    expect(res.structuredContent.top_posts[0]).toMatchObject({
      post_id: posts[0]!.id,
      likes: 12,
      permalink_url: `https://www.linkedin.com/feed/update/${posts[0]!.urn}/`,
    });
  });

  it('reads metricType as the versions before 202605 give it (an object keyed by its type), or an element naming no metric', async () => {
    const { connectedId, posts } = await connectedWithPosts({ stored: MEMBER_SCOPE }, [{}]);
    const older = (metric: string, count: number) =>
      json(200, {
        paging: { start: 0, count: 10, links: [] },
        elements: [
          {
            count,
            metricType: {
              'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1':
                metric,
            },
            targetEntity: { share: posts[0]!.urn },
          },
        ],
      });
    li.overrideAnalytics([
      json(200, { elements: [{ count: 5 }] }),
      older('RESHARE', 1),
      older('COMMENT', 2),
      older('IMPRESSION', 70),
    ]);
    await collectAccountMetrics(deps(), connectedId);
    expect(await kept([posts[0]!.id])).toEqual({
      [posts[0]!.id]: { likes: 5, reposts: 1, replies: 2, quotes: null, views: 70 },
    });
  });
});

describe("a Page's posts (organizationalEntityShareStatistics)", () => {
  it("keeps each post's totals from one call, and nothing for a post LinkedIn leaves out", async () => {
    const { connectedId, posts } = await connectedWithPosts(
      { stored: PAGE_SCOPE, organization: ORG },
      [{ reactions: 40, comments: 6, reshares: 9, impressions: 2_000, clicks: 30 }, {}],
    );
    expect(li.posts.at(-1)!.author).toBe(ORG);
    const before = li.analyticsRequests.length;
    expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
      outcome: 'read',
      posts: 2,
      counted: 1,
    });
    expect(await kept(posts.map((p) => p.id))).toEqual({
      [posts[0]!.id]: { likes: 40, reposts: 9, replies: 6, quotes: null, views: 2_000 },
    });
    const asked = li.analyticsRequests.slice(before);
    expect(asked).toHaveLength(1);
    const list = posts.map((p) => encodeURIComponent(p.urn)).sort();
    expect(asked[0]).toContain(`organizationalEntity=${encodeURIComponent(ORG)}`);
    expect(/shares=List\(([^)]*)\)/.exec(asked[0]!)?.[1]?.split(',').sort()).toEqual(list);
    expect(li.headerFaults).toEqual([]);
  });
});

describe('counts beyond what four can add up to', () => {
  it("caps a Page's counts of 2,000,000,000 at MAX_COUNT, failing nothing, and keeps the other post's", async () => {
    const huge = 2_000_000_000;
    const { connectedId, posts } = await connectedWithPosts(
      { stored: PAGE_SCOPE, organization: ORG },
      [
        { reactions: huge, comments: huge, reshares: huge, impressions: 2_000 },
        { reactions: 4, comments: 1, reshares: 2, impressions: 50 },
      ],
    );
    expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
      outcome: 'read',
      posts: 2,
      counted: 2,
    });
    expect(await kept(posts.map((p) => p.id))).toEqual({
      [posts[0]!.id]: {
        likes: MAX_COUNT,
        reposts: MAX_COUNT,
        replies: MAX_COUNT,
        quotes: null,
        views: 2_000,
      },
      [posts[1]!.id]: { likes: 4, reposts: 2, replies: 1, quotes: null, views: 50 },
    });
    expect((await accountRow(connectedId)).last_error).toBeNull();
  });
});

describe('only with the scope LinkedIn granted', () => {
  it('asks nothing of a connection whose granted scope lacks the one that reads counts', async () => {
    const cases: Connection[] = [
      {},
      { stored: 'openid,profile,w_member_social' },
      { stored: MEMBER_SCOPE.replace('r_member_postAnalytics', 'r_member_social') },
      // A Page's counts need rw_organization_admin, whatever the member's own allow.
      { stored: `${MEMBER_SCOPE},w_organization_social`, organization: ORG },
    ];
    for (const c of cases) {
      const { connectedId, posts } = await connectedWithPosts(c, [{ reactions: 4 }]);
      const before = li.analyticsRequests.length;
      expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
        outcome: 'read',
        posts: 1,
        counted: 0,
      });
      expect(li.analyticsRequests.length).toBe(before);
      expect(await kept([posts[0]!.id])).toEqual({});
    }
  });

  it('reads the scope as a space-separated list too', async () => {
    const { connectedId } = await connectedWithPosts(
      { stored: MEMBER_SCOPE.replaceAll(',', ' '), granted: MEMBER_SCOPE.split(',') },
      [{ reactions: 1 }],
    );
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ counted: 1 });
  });

  it('leaves the account without counts, and without an error, when LinkedIn answers 403', async () => {
    for (const c of [
      { stored: MEMBER_SCOPE, granted: ['openid', 'profile', 'w_member_social'] },
      { stored: PAGE_SCOPE, organization: ORG, granted: ['w_organization_social'] },
    ]) {
      const { connectedId, posts } = await connectedWithPosts(c, [{ reactions: 4 }, {}]);
      const before = li.analyticsRequests.length;
      expect(await collectAccountMetrics(deps(), connectedId)).toEqual({
        outcome: 'read',
        posts: 2,
        counted: 0,
      });
      // The first refusal ends the reading: the other post is not asked.
      expect(li.analyticsRequests.length - before).toBe(1);
      expect(await kept(posts.map((p) => p.id))).toEqual({});
      expect(await accountRow(connectedId)).toEqual({ status: 'active', last_error: null });
    }
  });
});

describe('hostile answers count nothing', () => {
  it("gives a member's post no counts when an answer does not say one plainly", async () => {
    const element = (over: Record<string, unknown>) =>
      json(200, {
        elements: [{ count: 3, metricType: 'REACTION', ...over }],
      });
    const answers: [string, Override][] = [
      ['not JSON', (res) => res.writeHead(200).end('{"elements": [')],
      ['no elements', json(200, { paging: {} })],
      ['an empty list', json(200, { elements: [] })],
      ['a missing count', element({ count: undefined })],
      ['a negative count', element({ count: -3 })],
      ['a fraction', element({ count: 2.5 })],
      ['a count as text', element({ count: '3' })],
      ['a count over 32 bits', element({ count: 2 ** 31 })],
      ['another metric', element({ metricType: 'IMPRESSION' })],
      ['another post', element({ targetEntity: { share: 'urn:li:share:1' } })],
      [
        'two elements',
        json(200, {
          elements: [
            { count: 1, metricType: 'REACTION' },
            { count: 2, metricType: 'REACTION' },
          ],
        }),
      ],
    ];
    for (const [what, answer] of answers) {
      // The first post's first answer is the hostile one; the second post is answered as
      // documented, and counted.
      const { connectedId, posts } = await connectedWithPosts({ stored: MEMBER_SCOPE }, [
        { reactions: 3 },
        { reactions: 7, impressions: 20 },
      ]);
      li.overrideAnalytics([answer]);
      const done = await collectAccountMetrics(deps(), connectedId);
      expect(done, what).toEqual({ outcome: 'read', posts: 2, counted: 1 });
      expect(await kept(posts.map((p) => p.id)), what).toEqual({
        [posts[1]!.id]: { likes: 7, reposts: 0, replies: 0, quotes: null, views: 20 },
      });
    }
  });

  it('counts nothing from an answer larger than any LinkedIn documents', async () => {
    const { connectedId, posts } = await connectedWithPosts({ stored: MEMBER_SCOPE }, [
      { reactions: 3 },
    ]);
    li.overrideAnalytics([json(200, { elements: [], padding: 'x'.repeat(2 * 1024 * 1024) })]);
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ outcome: 'skipped' });
    expect(await kept([posts[0]!.id])).toEqual({});
  });

  it("gives a Page's post no counts from a garbled, doubled or negative element", async () => {
    const totals = { likeCount: 5, commentCount: 1, shareCount: 2, impressionCount: 90 };
    const { connectedId, posts } = await connectedWithPosts(
      { stored: PAGE_SCOPE, organization: ORG },
      [{ reactions: 1 }, { reactions: 1 }, { reactions: 1 }, { reactions: 1 }],
    );
    const [doubled, negative, missing, fine] = posts.map((p) => p.urn);
    li.overrideAnalytics([
      json(200, {
        elements: [
          { share: doubled, totalShareStatistics: totals },
          { share: doubled, totalShareStatistics: { ...totals, likeCount: 500 } },
          { share: negative, totalShareStatistics: { ...totals, likeCount: -1 } },
          { share: missing, totalShareStatistics: { likeCount: 5 } },
          { share: 'urn:li:share:42', totalShareStatistics: totals },
          { totalShareStatistics: totals },
          { share: fine, totalShareStatistics: totals },
        ],
      }),
    ]);
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ counted: 1 });
    expect(await kept(posts.map((p) => p.id))).toEqual({
      [posts[3]!.id]: { likes: 5, reposts: 2, replies: 1, quotes: null, views: 90 },
    });
  });
});

describe('tokens', () => {
  it('refreshes on a 401 through the connection layer, then keeps the counts', async () => {
    const { member, connectedId, posts } = await connectedWithPosts(
      { stored: MEMBER_SCOPE, partner: true },
      [{ reactions: 8 }],
    );
    li.expire(member.accessToken);
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({ counted: 1 });
    expect(li.tokenRequests.filter((r) => r.refresh_token === member.refreshToken)).toHaveLength(1);
    expect(await kept([posts[0]!.id])).toMatchObject({ [posts[0]!.id]: { likes: 8 } });
  });

  it('marks the connection to reconnect on a 401 it cannot refresh', async () => {
    const { member, connectedId, posts } = await connectedWithPosts({ stored: MEMBER_SCOPE }, [
      { reactions: 8 },
    ]);
    li.expire(member.accessToken);
    expect(await collectAccountMetrics(deps(), connectedId)).toMatchObject({
      outcome: 'skipped',
    });
    expect(await accountRow(connectedId)).toMatchObject({ status: 'needs_reconnect' });
    expect(await kept([posts[0]!.id])).toEqual({});
  });
});

describe('the stand-in', () => {
  it('refuses with 400 a finder whose URN is not encoded as Rest.li 2.0 wants it', async () => {
    const member = li.member({ scopes: ['r_member_postAnalytics'] });
    const headers = {
      authorization: `Bearer ${member.accessToken}`,
      'linkedin-version': '202605',
      'x-restli-protocol-version': '2.0.0',
    };
    const get = async (query: string) =>
      (await fetch(`${li.url}/rest/memberCreatorPostAnalytics?${query}`, { headers })).status;
    expect(
      await get('q=entity&entity=(share:urn:li:share:1)&queryType=REACTION&aggregation=TOTAL'),
    ).toBe(400);
    expect(
      await get('q=entity&entity=(ugc:urn%3Ali%3Ashare%3A1)&queryType=REACTION&aggregation=TOTAL'),
    ).toBe(400);
    expect(
      await get('q=entity&entity=(share:urn%3Ali%3Ashare%3A1)&queryType=LIKES&aggregation=TOTAL'),
    ).toBe(400);
    expect(
      await get(
        'q=entity&entity=(share:urn%3Ali%3Ashare%3A1)&queryType=REACTION&aggregation=TOTAL',
      ),
    ).toBe(404);
  });
});
