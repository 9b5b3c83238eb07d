// A person publishes to X and LinkedIn from the dashboard, in Chromium: signs in, connects X
// and LinkedIn from the Accounts page through each platform's authorize page (the loopback
// stand-ins, reached through the service's *_AUTHORIZE_URL variables), uploads an image to the
// media library, composes one post for both with the image and schedules it; the real worker
// on the shipped connectors publishes it on both, and each post's page shows its permalink.
import { describe, expect, it } from 'vitest';
import { useAcceptanceService } from '../support/acceptance.ts';
import { accessibilityViolations, screenshot, signIn, useBrowser } from '../support/browser.ts';
import { connectFromAccountsPage, seePublished } from '../support/dashboardPublishing.ts';
import { publishNow } from '../support/jobs.ts';
import { startPublishingStandIns } from '../support/platforms/publishingStandIns.ts';
import { makeAccount } from '../support/server.ts';
import { solidPng } from '../support/uploads.ts';
import { waitFor } from '../support/wait.ts';

const { platforms, server } = useAcceptanceService(startPublishingStandIns, {
  publicBaseUrl: true,
});
const browser = useBrowser();

describe('X and LinkedIn from the dashboard', () => {
  it('connects both, schedules an image post to both, and shows both published with their permalinks', async () => {
    const acct = await makeAccount(server.pool, 'plus');
    const page = await browser.page(server.baseUrl);
    await signIn(page, acct);

    // Connect X: X's authorize page, then back on the Accounts page with the handle.
    await page.getByRole('link', { name: 'Accounts' }).click();
    await connectFromAccountsPage(page, 'X', '@bakery');

    // Connect LinkedIn the same way: the member's name is its handle.
    await connectFromAccountsPage(page, 'LinkedIn', platforms.member.name);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'x-linkedin-connected');

    // An image in the media library.
    await page.getByRole('link', { name: 'Media' }).click();
    await page.getByLabel('Upload an image, a video or audio').setInputFiles({
      name: 'rye.png',
      mimeType: 'image/png',
      buffer: await solidPng({ width: 1200, height: 630 }, '#c8843a'),
    });
    await page.getByRole('list', { name: 'Assets' }).getByText('rye.png').waitFor();

    // One post for X and LinkedIn with the image, scheduled for tomorrow at noon.
    await page.getByRole('link', { name: 'Compose' }).click();
    for (const p of ['bluesky', 'mastodon'])
      await page.getByRole('checkbox', { name: p }).uncheck();
    for (const p of ['x', 'linkedin']) await page.getByRole('checkbox', { name: p }).check();
    const text = 'Rye loaves out of the oven, from the dashboard';
    await page.getByLabel('Text').fill(text);
    await page.getByRole('checkbox', { name: 'rye.png' }).check();
    await page.getByRole('radio', { name: 'Schedule at' }).check();
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel(/Date and time/).fill(`${tomorrow}T12:00`);
    // Both platforms are connected: the composer warns of nothing.
    expect(await page.getByText(/No working account on/).count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'x-linkedin-compose');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.waitForURL(/\/calendar(\?|$)/);

    // The worker publishes both once they are due (made due now rather than waited for).
    const { rows } = await server.pool.query<{ id: string; platform: string }>(
      `select id::text, platform from posts where brand_id = $1 and status = 'scheduled'
       order by platform`,
      [acct.brandId],
    );
    expect(rows.map((r) => r.platform)).toEqual(['linkedin', 'x']);
    for (const r of rows) await publishNow(server.pool, r.id);
    await waitFor(
      async () => {
        const { rows: done } = await server.pool.query(
          `select count(*)::int as n from posts where brand_id = $1 and status = 'published'`,
          [acct.brandId],
        );
        return done[0].n === 2;
      },
      { what: 'both posts to be published', timeoutMs: 60_000 },
    );

    // What the platforms received: one tweet with one media id, one LinkedIn image post.
    const tweets = platforms.x.tweets.filter((t) => t.sent === text);
    expect(tweets.map((t) => t.mediaIds.length)).toEqual([1]);
    const liPosts = platforms.linkedin.posts.filter((p) => p.commentary === text);
    expect(liPosts).toHaveLength(1);
    expect((liPosts[0]!.content as { media?: { id?: string } }).media?.id).toMatch(
      /^urn:li:image:/,
    );
    const permalinks: Record<string, string> = {
      x: `https://x.com/bakery/status/${tweets[0]!.id}`,
      linkedin: `https://www.linkedin.com/feed/update/${liPosts[0]!.urn}/`,
    };

    // The board's published column holds both; each post's page links to it on the platform.
    await seePublished(page, rows, {
      permalink: (r) => permalinks[r.platform]!,
      boardShot: 'x-linkedin-published-board',
      shot: (r) => `${r.platform}-post-published`,
    });
    expect(platforms.x.schemaViolations).toEqual([]);
    expect(platforms.linkedin.headerFaults).toEqual([]);
  }, 120_000);
});
