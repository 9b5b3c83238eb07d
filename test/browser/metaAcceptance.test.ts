// A person publishes to Threads, Instagram and a Facebook Page from the dashboard, in Chromium:
// signs in, connects the three from the Accounts page through Meta's authorize pages (the
// loopback stand-ins, reached through the service's *_AUTHORIZE_URL variables), uploads images
// to the media library, composes one post for the three with one image and schedules it, then
// one post for the three with three images (a carousel on Threads and Instagram, one post of
// three photos on the Page); the real worker on the shipped connectors publishes all six, the
// platforms fetching the media from the service's own signed addresses, and each post's page
// shows its permalink.
import { describe, expect, it } from 'vitest';
import { useAcceptanceService } from '../support/acceptance.ts';
import { accessibilityViolations, screenshot, signIn, useBrowser } from '../support/browser.ts';
import { connectFromAccountsPage, seePublished } from '../support/dashboardPublishing.ts';
import { publishNow } from '../support/jobs.ts';
import { startMetaStandIns } from '../support/platforms/metaStandIns.ts';
import { makeAccount } from '../support/server.ts';
import { solidPng } from '../support/uploads.ts';
import { waitFor } from '../support/wait.ts';

// The worker hands Threads and Instagram the media addresses signed with the API's secret
// under PUBLIC_BASE_URL.
const { platforms, server } = useAcceptanceService(startMetaStandIns, {
  publicBaseUrl: true,
  publicMedia: true,
});
const browser = useBrowser();

const META = ['threads', 'instagram', 'facebook'] as const;

describe('Threads, Instagram and Facebook from the dashboard', () => {
  it('connects the three, schedules an image post and a carousel to all three, and shows the six published with their permalinks', async () => {
    const acct = await makeAccount(server.pool, 'plus');
    const page = await browser.page(server.baseUrl);
    await signIn(page, acct);

    // Connect each from the Accounts page: Meta's authorize page, then back with the account.
    await page.getByRole('link', { name: 'Accounts' }).click();
    const handles = {
      Threads: '@brand.studio',
      Instagram: '@brand.studio',
      Facebook: 'Brand Studio',
    };
    for (const [name, handle] of Object.entries(handles))
      await connectFromAccountsPage(page, name, handle);
    // PUBLIC_BASE_URL is loopback here: the two platforms that fetch media say so.
    for (const name of ['Threads', 'Instagram'])
      await page
        .getByRole('listitem', { name, exact: true })
        .getByText(`${name} fetches media from this service`)
        .waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'meta-connected');

    // Images within Instagram's 4:5 to 1.91:1 in the media library.
    await page.getByRole('link', { name: 'Media' }).click();
    const images = [
      ['croissant.png', { width: 1080, height: 1080 }, '#d9a441'],
      ['baguette.png', { width: 1080, height: 1350 }, '#c8843a'],
      ['brioche.png', { width: 1200, height: 630 }, '#e8c07a'],
      ['rye.png', { width: 1080, height: 1080 }, '#7a5230'],
    ] as const;
    for (const [name, size, colour] of images) {
      await page.getByLabel('Upload an image, a video or audio').setInputFiles({
        name,
        mimeType: 'image/png',
        buffer: await solidPng(size, colour),
      });
      await page.getByRole('list', { name: 'Assets' }).getByText(name).waitFor();
    }

    // One composer action a post: for the three Meta platforms, scheduled tomorrow at noon.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const compose = async (text: string, attach: string[], shot: string) => {
      await page.getByRole('link', { name: 'Compose' }).click();
      for (const p of ['bluesky', 'mastodon'])
        await page.getByRole('checkbox', { name: p }).uncheck();
      for (const p of META) await page.getByRole('checkbox', { name: p }).check();
      await page.getByLabel('Text').fill(text);
      for (const name of attach) await page.getByRole('checkbox', { name }).check();
      await page.getByRole('radio', { name: 'Schedule at' }).check();
      await page.getByLabel(/Date and time/).fill(`${tomorrow}T12:00`);
      // The three are connected: the composer warns of nothing.
      expect(await page.getByText(/No working account on/).count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, shot);
      await page.getByRole('button', { name: 'Schedule' }).click();
      await page.waitForURL(/\/calendar(\?|$)/);
    };
    const single = 'Croissants, laminated overnight';
    const carousel = 'Three loaves from this morning, left to right';
    await compose(single, ['croissant.png'], 'meta-compose-image');
    await compose(carousel, ['baguette.png', 'brioche.png', 'rye.png'], 'meta-compose-carousel');

    // The worker publishes the six once they are due (made due now rather than waited for).
    const { rows } = await server.pool.query<{
      id: string;
      platform: string;
      kind: string;
      body: string;
    }>(
      `select id::text, platform, kind, body from posts where brand_id = $1 and status = 'scheduled'
       order by platform, id`,
      [acct.brandId],
    );
    expect(rows.map((r) => [r.platform, r.kind, r.body])).toEqual([
      ['facebook', 'image', single],
      ['facebook', 'image', carousel],
      ['instagram', 'image', single],
      ['instagram', 'carousel', carousel],
      ['threads', 'image', single],
      ['threads', 'carousel', carousel],
    ]);
    for (const r of rows) await publishNow(server.pool, r.id);
    await waitFor(
      async () => {
        const { rows: done } = await server.pool.query(
          `select count(*)::int as n from posts where brand_id = $1 and status in ('published', 'failed')`,
          [acct.brandId],
        );
        return done[0].n === 6;
      },
      { what: 'the six posts to be published', timeoutMs: 120_000 },
    );
    const { rows: outcomes } = await server.pool.query(
      `select platform, body, status, error from posts where brand_id = $1 order by platform, id`,
      [acct.brandId],
    );
    expect(outcomes.filter((o) => o.status !== 'published')).toEqual([]);

    // What the platforms made: on Threads and Instagram an image and a carousel of three, each
    // medium fetched from the service's signed address; on the Page a photo and three photos.
    const base = `${server.baseUrl}/media/platform/`;
    const th = (text: string) => platforms.threads.posts.filter((p) => p.text === text);
    expect(th(single).map((p) => [p.mediaType, p.children.length])).toEqual([['IMAGE', 0]]);
    expect(th(carousel).map((p) => [p.mediaType, p.children.length])).toEqual([
      ['CAROUSEL_ALBUM', 3],
    ]);
    expect(platforms.threads.fetched).toHaveLength(4);
    for (const f of platforms.threads.fetched) expect(f.url.startsWith(base)).toBe(true);
    const ig = (text: string) => platforms.instagram.media.filter((m) => m.caption === text);
    expect(ig(single).map((m) => m.mediaType)).toEqual(['IMAGE']);
    expect(ig(carousel).map((m) => m.mediaType)).toEqual(['CAROUSEL_ALBUM']);
    const carouselContainer = platforms.instagram.containers.get(ig(carousel)[0]!.container)!;
    expect(carouselContainer.children).toHaveLength(3);
    expect(platforms.instagram.fetches.map((f) => f.status)).toEqual([200, 200, 200, 200]);
    for (const f of platforms.instagram.fetches) expect(f.url.startsWith(base)).toBe(true);
    const fb = (text: string) => platforms.facebook.posts.filter((p) => p.message === text);
    expect(fb(single).map((p) => p.photos.length)).toEqual([1]);
    expect(fb(carousel).map((p) => p.photos.length)).toEqual([3]);

    const fbPermalink = (p: { id: string; pageId: string }) =>
      `https://www.facebook.com/${p.pageId}/posts/${p.id.split('_')[1]}`;
    const permalinks: Record<string, string> = {};
    for (const r of rows) {
      permalinks[r.id] =
        r.platform === 'threads'
          ? th(r.body)[0]!.permalink
          : r.platform === 'instagram'
            ? ig(r.body)[0]!.permalink
            : fbPermalink(fb(r.body)[0]!);
    }

    // The board's published column holds the six; each post's page links to it on the platform.
    await seePublished(page, rows, {
      permalink: (r) => permalinks[r.id]!,
      boardShot: 'meta-published-board',
      shot: (r) => `${r.platform}-${r.body === single ? 'image' : 'carousel'}-post-published`,
    });
    expect([platforms.threads.republished, platforms.facebook.videos.size]).toEqual([[], 0]);
  }, 240_000);

  it("says in the composer why Instagram refuses a post: no media, or an image outside Instagram's aspect ratios", async () => {
    const acct = await makeAccount(server.pool, 'plus');
    const page = await browser.page(server.baseUrl);
    await signIn(page, acct);
    await page.getByRole('link', { name: 'Media' }).click();
    await page.getByLabel('Upload an image, a video or audio').setInputFiles({
      name: 'panorama.png',
      mimeType: 'image/png',
      buffer: await solidPng({ width: 1400, height: 600 }, '#c8843a'),
    });
    await page.getByRole('list', { name: 'Assets' }).getByText('panorama.png').waitFor();

    await page.getByRole('link', { name: 'Compose' }).click();
    await page.getByRole('checkbox', { name: 'instagram' }).check();
    await page.getByLabel('Text').fill('The shop front at dawn');
    await page.getByRole('button', { name: 'Save draft' }).click();
    // Instagram takes no text post: said, and nothing saved.
    await page
      .getByText(/instagram takes kind image, video, carousel, story, reel; not "text"/)
      .waitFor();

    await page.getByRole('checkbox', { name: 'panorama.png' }).check();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText(/instagram takes images of aspect ratio 4:5 to 1\.91:1/).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'meta-compose-instagram-refused');
    const { rows } = await server.pool.query(
      `select count(*)::int as n from posts where brand_id = $1`,
      [acct.brandId],
    );
    expect(rows[0].n).toBe(0);
  });
});
