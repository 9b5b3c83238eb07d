// X and LinkedIn end to end, as an API client and an agent use them: accounts connected with
// tokens through the operator CLI's connect path (checked with each platform's identity call),
// an uploaded image, one post to each platform scheduled through REST or MCP, and the real
// worker on the shipped connectors (pointed at the loopback stand-ins by the *_API_URL
// variables) publishing both, each with its permalink, and post.published sent to a webhook.
import { afterAll, describe, expect, it } from 'vitest';
import {
  accountWithWebhook,
  mcpTools,
  publishedEvents,
  publishNowAndSettle,
  scheduleThroughRest,
  useAcceptanceService,
} from '../support/acceptance.ts';
import { startPublishingStandIns } from '../support/platforms/publishingStandIns.ts';
import { startReceiver } from '../support/receiver.ts';
import { call, makeKey } from '../support/server.ts';
import { useStarted } from '../support/service.ts';
import { uploadPng } from '../support/uploads.ts';

const receiver = useStarted(startReceiver, (started) => started.close());
const { platforms, server } = useAcceptanceService(startPublishingStandIns);
afterAll(() => {
  // A request body that does not fit X's own OpenAPI schema fails the file.
  expect(platforms.x.schemaViolations).toEqual([]);
  expect(platforms.linkedin.headerFaults).toEqual([]);
});

/** A Plus account with a key and a webhook endpoint, its brand connected to X and LinkedIn. */
async function connectedBrand(path: string) {
  const { acct, connect } = await accountWithWebhook(server, receiver, path);
  const x = await connect('x', platforms.x.issueTokens());
  const member = platforms.linkedin.member({ name: 'Grace Hopper' });
  const linkedin = await connect('linkedin', { access_token: member.accessToken });
  expect([x.handle, linkedin.handle]).toEqual(['@bakery', 'Grace Hopper']);
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish', 'media']);
  return { acct, key, member };
}

/** What the platforms made for `text`: one tweet with one media id, one LinkedIn image post. */
function madeOnPlatforms(text: string, member: { sub: string }) {
  const tweets = platforms.x.tweets.filter((t) => t.sent.startsWith(text));
  const posts = platforms.linkedin.posts.filter((p) => p.commentary.startsWith(text));
  expect(tweets).toHaveLength(1);
  expect(tweets[0]!.mediaIds).toHaveLength(1);
  expect(platforms.x.media.get(tweets[0]!.mediaIds[0]!)?.ownerId).toBe(platforms.x.user.id);
  expect(posts).toHaveLength(1);
  expect(posts[0]!.author).toBe(`urn:li:person:${member.sub}`);
  const media = (posts[0]!.content as { media?: { id?: string } } | undefined)?.media;
  expect(media?.id).toMatch(/^urn:li:image:/);
  expect(platforms.linkedin.images.has(media!.id!)).toBe(true);
  return {
    x: `https://x.com/bakery/status/${tweets[0]!.id}`,
    linkedin: `https://www.linkedin.com/feed/update/${posts[0]!.urn}/`,
  };
}

describe('through REST', () => {
  it('an image post scheduled to X and to LinkedIn is published on both, with permalinks', async () => {
    const { key, member } = await connectedBrand('/rest');
    const image = await uploadPng(server, key, { width: 1200, height: 630 }, '#c8843a');
    const text = 'Rye loaves out of the oven, for REST';
    const ids: Record<string, string> = {};
    for (const platform of ['x', 'linkedin']) {
      // Both connected: nothing to warn about.
      ids[platform] = await scheduleThroughRest(server, key, {
        platform,
        body: text,
        asset_ids: [image],
      });
    }
    await publishNowAndSettle(server, Object.values(ids), 60_000);
    // REST reads posts by status (GET /v1/posts): both are in the published list.
    const res = await call(server, 'GET', '/v1/posts?status_filter=published', { key });
    expect(res.status).toBe(200);
    const published = (res.body as Record<string, any>[]).filter((p) =>
      Object.values(ids).includes(p.id),
    );
    const x = published.find((p) => p.platform === 'x')!;
    const linkedin = published.find((p) => p.platform === 'linkedin')!;
    const permalinks = madeOnPlatforms(text, member);
    expect({ status: x.status, error: x.error, permalink_url: x.permalink_url }).toEqual({
      status: 'published',
      error: null,
      permalink_url: permalinks.x,
    });
    expect({
      status: linkedin.status,
      error: linkedin.error,
      permalink_url: linkedin.permalink_url,
    }).toEqual({ status: 'published', error: null, permalink_url: permalinks.linkedin });

    const events = await publishedEvents(receiver, '/rest', Object.values(ids));
    expect(events[ids.x!]).toMatchObject({ platform: 'x', permalink_url: permalinks.x });
    expect(events[ids.linkedin!]).toMatchObject({
      platform: 'linkedin',
      permalink_url: permalinks.linkedin,
    });
  }, 90_000);
});

describe('through MCP', () => {
  it('create_post and schedule_post for X and LinkedIn; get_post and list_posts show both published', async () => {
    const { key, member } = await connectedBrand('/mcp');
    const image = await uploadPng(server, key, { width: 1080, height: 1080 }, '#3a7fc8');
    const client = await mcpTools(server, key);
    const { tool } = client;
    try {
      const text = 'Seeded rye, sliced to order, for MCP';
      const ids: Record<string, string> = {};
      for (const platform of ['x', 'linkedin']) {
        ids[platform] = await client.schedule({ platform, body: text, asset_ids: [image] });
      }
      await publishNowAndSettle(server, Object.values(ids), 60_000);
      const done = async (id: string) => (await tool('get_post', { post_id: id })).post;
      const x = await done(ids.x!);
      const linkedin = await done(ids.linkedin!);
      const permalinks = madeOnPlatforms(text, member);
      expect([x.status, x.permalink_url]).toEqual(['published', permalinks.x]);
      expect([linkedin.status, linkedin.permalink_url]).toEqual(['published', permalinks.linkedin]);

      const { posts } = await tool('list_posts', { status_filter: 'published' });
      expect(
        posts
          .map((p: Record<string, any>) => [p.id, p.platform, p.permalink_url])
          .sort((a: string[], b: string[]) => a[1]!.localeCompare(b[1]!)),
      ).toEqual([
        [ids.linkedin, 'linkedin', permalinks.linkedin],
        [ids.x, 'x', permalinks.x],
      ]);

      const events = await publishedEvents(receiver, '/mcp', Object.values(ids));
      expect(events[ids.x!]).toMatchObject({ status: 'published', permalink_url: permalinks.x });
      expect(events[ids.linkedin!]).toMatchObject({
        status: 'published',
        permalink_url: permalinks.linkedin,
      });
    } finally {
      await client.close();
    }
  }, 90_000);
});
