// Threads, Instagram and Facebook Pages end to end, as an API client and an agent use them:
// accounts connected through the operator CLI's connect path with CONTRACT's fields (checked
// with each platform's identity call), uploaded images, an image post and a carousel to each
// platform created through REST or MCP, and the real worker on the shipped connectors (pointed
// at the loopback stand-ins by the *_API_URL variables, handing Threads and Instagram the
// service's own signed media addresses under PUBLIC_BASE_URL) publishing all six, each with
// its permalink, and post.published sent to a webhook.
import { afterAll, describe, expect, it } from 'vitest';
import {
  accountWithWebhook,
  mcpTools,
  publishedEvents,
  publishNowAndSettle,
  scheduleThroughRest,
  useAcceptanceService,
} from '../support/acceptance.ts';
import { META_USER } from '../support/platforms/metaGraph.ts';
import { startMetaStandIns } from '../support/platforms/metaStandIns.ts';
import { startReceiver } from '../support/receiver.ts';
import { call, makeKey } from '../support/server.ts';
import { useStarted } from '../support/service.ts';
import { uploadPng } from '../support/uploads.ts';

const META = ['threads', 'instagram', 'facebook'] as const;
type Meta = (typeof META)[number];
/** The stand-ins' person (metaOauth.ts's `brand` user) and the first Page it manages. */
const USER_ID = META_USER.id;

const receiver = useStarted(startReceiver, (started) => started.close());
// The worker hands Threads and Instagram the media addresses signed with the API's secret
// under PUBLIC_BASE_URL.
const { platforms, server } = useAcceptanceService(startMetaStandIns, {
  publicBaseUrl: true,
  publicMedia: true,
});
afterAll(() => {
  // No container was published twice, and nothing went up as a video.
  expect(platforms.threads.republished).toEqual([]);
  expect(platforms.facebook.videos.size).toBe(0);
});

/** A Plus account with a key and a webhook endpoint, its brand connected to the three. */
async function connectedBrand(path: string) {
  const { acct, connect } = await accountWithWebhook(server, receiver, path);
  // CONTRACT's `connect --config`: a long-lived token and the account it posts as.
  const expires_at = new Date(Date.now() + 59 * 86_400_000).toISOString();
  const threads = await connect('threads', {
    access_token: platforms.threads.longLived('brand'),
    expires_at,
    user_id: USER_ID,
  });
  const instagram = await connect('instagram', {
    access_token: platforms.instagram.longLived('brand'),
    expires_at,
    user_id: USER_ID,
  });
  const page = platforms.facebook.pages[0]!;
  const facebook = await connect('facebook', {
    access_token: await platforms.facebook.pageToken(platforms.facebook.longLived('brand')),
    page_id: page.id,
  });
  expect([threads.handle, instagram.handle, facebook.handle]).toEqual([
    '@brand.studio',
    '@brand.studio',
    page.name,
  ]);
  const key = await makeKey(server.pool, acct.accountId, ['read', 'publish', 'media']);
  return { key };
}

/** Three images within Instagram's 4:5 to 1.91:1, uploaded with `key`. */
const uploadImages = async (key: string) => [
  await uploadPng(server, key, { width: 1080, height: 1080 }, '#d9a441'),
  await uploadPng(server, key, { width: 1080, height: 1350 }, '#c8843a'),
  await uploadPng(server, key, { width: 1200, height: 630 }, '#e8c07a'),
];

/**
 * What the platforms made for `text`, each once, with `images` media fetched from the
 * service's signed addresses (Threads, Instagram) or uploaded (the Page); their permalinks.
 */
function madeOnPlatforms(text: string, images: number): Record<Meta, string> {
  const base = `${server.baseUrl}/media/platform/`;
  const th = platforms.threads.posts.filter((p) => p.text === text);
  expect(th.map((p) => [p.mediaType, p.children.length])).toEqual([
    images === 1 ? ['IMAGE', 0] : ['CAROUSEL_ALBUM', images],
  ]);
  const ig = platforms.instagram.media.filter((m) => m.caption === text);
  expect(ig.map((m) => m.mediaType)).toEqual([images === 1 ? 'IMAGE' : 'CAROUSEL_ALBUM']);
  const container = platforms.instagram.containers.get(ig[0]!.container)!;
  expect(container.children).toHaveLength(images === 1 ? 0 : images);
  for (const f of [...platforms.threads.fetched, ...platforms.instagram.fetches])
    expect(f.url.startsWith(base), f.url).toBe(true);
  const fb = platforms.facebook.posts.filter((p) => p.message === text);
  expect(fb.map((p) => p.photos.length)).toEqual([images]);
  return {
    threads: th[0]!.permalink,
    instagram: ig[0]!.permalink,
    facebook: `https://www.facebook.com/${fb[0]!.pageId}/posts/${fb[0]!.id.split('_')[1]}`,
  };
}

describe('through REST', () => {
  it('an image post and a carousel to Threads, Instagram and a Facebook Page are published on all three, with permalinks', async () => {
    const { key } = await connectedBrand('/rest');
    const images = await uploadImages(key);
    const posts = [
      { text: 'Croissants, laminated overnight, for REST', asset_ids: images.slice(0, 1) },
      { text: 'Three loaves from this morning, for REST', asset_ids: images, kind: 'carousel' },
    ];
    const ids: { id: string; platform: Meta; text: string }[] = [];
    for (const { text, ...post } of posts)
      for (const platform of META) {
        // The three are connected: nothing to warn about.
        const id = await scheduleThroughRest(server, key, { platform, body: text, ...post });
        ids.push({ id, platform, text });
      }
    await publishNowAndSettle(
      server,
      ids.map((p) => p.id),
      90_000,
    );
    // REST reads posts by status (GET /v1/posts): the six are in the published list.
    const res = await call(server, 'GET', '/v1/posts?status_filter=published', { key });
    expect(res.status).toBe(200);
    const listed = new Map((res.body as Record<string, any>[]).map((p) => [p.id, p]));
    const permalinks = {
      [posts[0]!.text]: madeOnPlatforms(posts[0]!.text, 1),
      [posts[1]!.text]: madeOnPlatforms(posts[1]!.text, 3),
    };
    for (const { id, platform, text } of ids) {
      const p = listed.get(id);
      expect({ platform: p?.platform, status: p?.status, error: p?.error }).toEqual({
        platform,
        status: 'published',
        error: null,
      });
      expect(p?.permalink_url).toBe(permalinks[text]![platform]);
    }

    const events = await publishedEvents(
      receiver,
      '/rest',
      ids.map((p) => p.id),
    );
    for (const { id, platform, text } of ids)
      expect(events[id]).toMatchObject({ platform, permalink_url: permalinks[text]![platform] });
  }, 150_000);
});

describe('through MCP', () => {
  it('create_post and schedule_post for the three, an image post and a carousel; get_post and list_posts show the six published', async () => {
    const { key } = await connectedBrand('/mcp');
    const images = await uploadImages(key);
    const client = await mcpTools(server, key);
    const { tool } = client;
    try {
      const posts = [
        { text: 'Croissants, laminated overnight, for MCP', asset_ids: images.slice(0, 1) },
        { text: 'Three loaves from this morning, for MCP', asset_ids: images, kind: 'carousel' },
      ];
      const ids: { id: string; platform: Meta; text: string }[] = [];
      for (const { text, ...post } of posts)
        for (const platform of META) {
          const id = await client.schedule({ platform, body: text, ...post });
          ids.push({ id, platform, text });
        }
      await publishNowAndSettle(
        server,
        ids.map((p) => p.id),
        90_000,
      );
      const permalinks = {
        [posts[0]!.text]: madeOnPlatforms(posts[0]!.text, 1),
        [posts[1]!.text]: madeOnPlatforms(posts[1]!.text, 3),
      };
      for (const { id, platform, text } of ids) {
        const { post } = await tool('get_post', { post_id: id });
        expect([post.platform, post.status, post.permalink_url]).toEqual([
          platform,
          'published',
          permalinks[text]![platform],
        ]);
      }

      const { posts: listed } = await tool('list_posts', { status_filter: 'published' });
      expect(
        listed.map((p: Record<string, any>) => `${p.id} ${p.platform} ${p.permalink_url}`).sort(),
      ).toEqual(
        ids
          .map(({ id, platform, text }) => `${id} ${platform} ${permalinks[text]![platform]}`)
          .sort(),
      );

      const events = await publishedEvents(
        receiver,
        '/mcp',
        ids.map((p) => p.id),
      );
      for (const { id, platform, text } of ids)
        expect(events[id]).toMatchObject({
          status: 'published',
          permalink_url: permalinks[text]![platform],
        });
    } finally {
      await client.close();
    }
  }, 150_000);
});
