// A newcomer's first session in Chromium: a newcomer signs up, writes a post (the counters count
// each platform its way), schedules it, finds it on the calendar and drags it to another day;
// creates an API key (shown once) and a webhook endpoint (its secret shown once); a post
// published through a stand-in platform shows its delivery in the endpoint's log, which is
// replayed. Pages are checked with axe-core and photographed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../workers/index.ts';
import {
  accessibilityViolations,
  freePort,
  screenshot,
  signUp,
  useBrowser,
} from '../support/browser.ts';
import {
  type FakePlatform,
  platformConnector,
  startFakePlatform,
} from '../support/fakePlatform.ts';
import { publishNow } from '../support/jobs.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { call, connectPlatform, makeKey } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, startWorkerBeside, useServer } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

let port = 0;
let platform: FakePlatform;
let receiver: Receiver;
let worker: WorkerRunner;
beforeAll(async () => {
  port = await freePort();
  platform = await startFakePlatform();
  receiver = await startReceiver();
});
const server = useServer(() => ({
  port,
  env: { ...LOOPBACK_OUTBOUND, SIGNUP: 'open', PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
}));
beforeAll(async () => {
  worker = await startWorkerBeside(server, {
    connectors: { mastodon: platformConnector(platform.url) },
  });
});
afterAll(async () => {
  await worker?.stop();
  await platform?.close();
  await receiver?.close();
});
const browser = useBrowser();

describe('publishing from the dashboard', () => {
  it('composes, schedules, moves on the calendar, makes a key and a webhook, and shows a delivery', async () => {
    const page = await browser.page(server.baseUrl);
    await signUp(page, 'writer@example.com');
    // Plus (for the webhook) and a connected Mastodon account (for the publication).
    const { rows } = await server.pool.query(
      `update accounts set plan = 'plus' where email = 'writer@example.com'
       returning id::text, selected_brand_id::text as brand`,
    );
    const acct = { accountId: rows[0].id, brandId: rows[0].brand } as any;
    await connectPlatform(server.pool, acct, 'mastodon');

    await page.getByRole('link', { name: 'Compose' }).click();
    await page.getByRole('checkbox', { name: 'bluesky' }).uncheck();
    await page.getByLabel('Text').fill('Sourdough 🍞 at https://bakery.example/rye');
    // Each platform counts its way: Mastodon characters, with the emoji one; X would weigh it.
    await expect
      .poll(() => page.locator('#counters').textContent())
      .toMatch(/mastodon: 41\/500 characters/);
    await page.getByRole('radio', { name: 'Next free slot' }).check();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'compose');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.waitForURL(/\/calendar(\?|$)/);
    const event = page.getByRole('listitem', { name: /mastodon post \d+, scheduled/ });
    await event.waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'calendar');

    // Drag it to the next day: the same time of day, a day later.
    const label = (await event.getAttribute('aria-label'))!;
    const postId = /post (\d+)/.exec(label)![1]!;
    const before = (
      await call(
        server,
        'GET',
        `/app/api/calendar?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z`,
      )
    ).status;
    expect(before).toBe(401);
    const due = async () =>
      (await server.pool.query('select scheduled_for from posts where id = $1', [postId])).rows[0]
        .scheduled_for as Date;
    const first = await due();
    const day = await event.evaluate((el) => el.closest('li.day')!.getAttribute('data-day'));
    const nextDay = page.locator(
      `li.day[data-day="${new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)}"]`,
    );
    if (await nextDay.count()) await event.dragTo(nextDay);
    else await event.getByRole('button', { name: /a day later/ }).click();
    await waitFor(async () => (await due()).getTime() === first.getTime() + 86_400_000, {
      what: 'the post to move a day',
    });

    // An API key: shown once.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('ci script');
    await page.getByRole('checkbox', { name: 'publish' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    expect(key).toMatch(/^sps_/);
    expect((await call(server, 'GET', '/v1/me', { key })).status).toBe(200);
    await page.reload();
    await page.getByRole('cell', { name: 'ci script', exact: true }).waitFor();
    expect(await page.content()).not.toContain(key);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'keys');

    // A webhook, its secret shown once; a publication's delivery in its log, then replayed.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Receiver URL').fill(receiver.url('/ok'));
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    expect(await page.getByTestId('new-secret').textContent()).toMatch(/\S{20,}/);
    const apiKey = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
    const post = await call(server, 'POST', '/v1/posts', {
      key: apiKey,
      body: {
        platform: 'mastodon',
        body: 'Out now',
        schedule_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    await publishNow(server.pool, post.body.id);
    await waitFor(async () => receiver.on('/ok').length >= 1, { what: 'the delivery' });
    // The log reads itself again every 10 s; its Refresh button reads it now.
    await page
      .getByRole('button', { name: `Refresh deliveries to ${receiver.url('/ok')}` })
      .click();
    const row = page.getByRole('row', { name: /post\.published/ });
    await row.first().waitFor({ timeout: 15_000 });
    expect(await row.first().textContent()).toMatch(/204/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'webhooks');
    await row
      .first()
      .getByRole('button', { name: /Replay/ })
      .click();
    await waitFor(async () => receiver.on('/ok').length >= 2, { what: 'the replayed delivery' });
    expect(receiver.on('/ok')[1]!.raw.equals(receiver.on('/ok')[0]!.raw)).toBe(true);

    // Analytics (the published post, not counted yet) and competitors, each checked.
    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('table', { name: /Best hours to post/ }).waitFor();
    expect(await page.getByText('Posts published').isVisible()).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'analytics');
    await page.getByRole('link', { name: 'Competitors' }).click();
    await page.getByLabel('Handle').fill('rival@social.example');
    await page.getByRole('button', { name: 'Track' }).click();
    await page.getByText('rival@social.example').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'competitors');
    // The connected Mastodon account, healthy, then marked as needing a reconnect.
    await page.getByRole('link', { name: 'Accounts' }).click();
    await page.getByText('active', { exact: true }).waitFor();
    await server.pool.query(`update connected_accounts set status = 'needs_reconnect'`);
    await page.reload();
    await page.getByText('needs reconnecting').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'accounts');
    // Every page also at 375 px: nothing scrolls sideways, nothing serious for axe.
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of [
      '/compose',
      '/calendar',
      '/settings/keys',
      '/settings/webhooks',
      '/analytics',
      '/settings/accounts',
      '/settings/competitors',
    ]) {
      await page.goto(path);
      await page.locator('main h1').waitFor();
      expect(await accessibilityViolations(page), path).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth > 375), path).toBe(
        false,
      );
    }
  });
});
