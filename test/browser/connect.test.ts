// Connecting X from the dashboard in Chromium, against a loopback stand-in of the platform's
// authorize page and token endpoint: the Accounts page lists every platform ("Connect X", the
// variables an operator sets for LinkedIn), "Connect X" goes to the platform's page and back
// with the account's handle; a declined authorization comes back with our reason, and a
// connection that needs reconnecting offers "Reconnect X", which keeps the same connection. A
// post composed for a platform with no connection is saved, and the next page says it will fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  freePort,
  screenshot,
  signIn,
  useBrowser,
} from '../support/browser.ts';
import { type OAuthStandIn, standInOAuthApp, startOAuthStandIn } from '../support/oauthPlatform.ts';
import { makeAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

let port = 0;
let standIn: OAuthStandIn;
beforeAll(async () => {
  port = await freePort();
  standIn = await startOAuthStandIn('bakery');
});
afterAll(async () => {
  await standIn?.close();
});
const server = useServer(() => ({
  port,
  env: { ...LOOPBACK_OUTBOUND, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...standIn.env('X') },
  oauthApps: { x: standInOAuthApp('x') },
}));
const browser = useBrowser();

describe('connecting an OAuth platform from the Accounts page', () => {
  it('goes to the platform, comes back connected, and reconnects the same connection', async () => {
    const acct = await makeAccount(server.pool, 'free');
    const page = await browser.page(server.baseUrl);
    await signIn(page, acct);

    await page.getByRole('link', { name: 'Accounts' }).click();
    const x = page.getByRole('listitem', { name: 'X', exact: true });
    await x.getByRole('button', { name: 'Connect X' }).waitFor();
    await expect
      .poll(() => page.getByRole('listitem', { name: 'LinkedIn' }).textContent())
      .toMatch(/LINKEDIN_CLIENT_ID.*LINKEDIN_CLIENT_SECRET/);
    // Connectable but not published to by this version: the page says so; X is published to.
    await page
      .getByRole('listitem', { name: 'TikTok' })
      .getByText(
        'Publishing to TikTok is not built yet: its posts are saved but will fail when due.',
      )
      .waitFor();
    expect(await x.textContent()).not.toMatch(/not built yet/);
    // This server's PUBLIC_BASE_URL is loopback: the platforms that fetch media say so; X does not.
    await page
      .getByRole('listitem', { name: 'Instagram' })
      .getByRole('note')
      .filter({
        hasText:
          /Instagram fetches media from this service: PUBLIC_BASE_URL \(http:\/\/127\.0\.0\.1:\d+\) is not reachable from the internet/,
      })
      .waitFor();
    expect(await x.textContent()).not.toMatch(/fetches media/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'accounts-platforms');

    // Declined on the platform's page: back with our reason, nothing connected.
    await x.getByRole('button', { name: 'Connect X' }).click();
    await page.waitForURL(`${standIn.url}/**`);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(/\/settings\/accounts\?connect_error=access_denied/);
    await page.getByText('X: Access was declined on the platform').waitFor();

    // Authorized: back on the Accounts page with the account's handle.
    await x.getByRole('button', { name: 'Connect X' }).click();
    await page.waitForURL(`${standIn.url}/**`);
    await screenshot(page, 'platform-authorize');
    await page.getByRole('link', { name: 'Authorize app' }).click();
    await page.waitForURL(/\/settings\/accounts\?connected=x/);
    await page.getByText('X is connected.').waitFor();
    await expect.poll(() => x.textContent()).toMatch(/@bakery\s*active/);
    // A working connection can still be renewed through the platform (quietly offered).
    await x.getByRole('button', { name: 'Reconnect X' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'accounts-connected');
    const { rows } = await server.pool.query(
      `select id::text, handle from connected_accounts where brand_id = $1 and platform = 'x'`,
      [acct.brandId],
    );
    expect(rows).toEqual([{ id: expect.any(String), handle: '@bakery' }]);

    // Revoked: Reconnect goes through the platform again and keeps the same connection.
    await server.pool.query(
      `update connected_accounts set status = 'needs_reconnect', last_error = 'The token was revoked.' where id = $1`,
      [rows[0].id],
    );
    await page.goto('/settings/accounts');
    await x.getByText('needs reconnecting').waitFor();
    await x.getByRole('button', { name: 'Reconnect X' }).click();
    await page.getByRole('link', { name: 'Authorize app' }).click();
    await page.waitForURL(/\/settings\/accounts\?connected=x/);
    await expect.poll(() => x.textContent()).toMatch(/@bakery\s*active/);
    const after = await server.pool.query(
      `select id::text, status from connected_accounts where brand_id = $1 and platform = 'x'`,
      [acct.brandId],
    );
    expect(after.rows).toEqual([{ id: rows[0].id, status: 'active' }]);

    // The composer saves a post for a platform with no connection, and says it will fail.
    await page.getByRole('link', { name: 'Compose' }).click();
    await page.getByRole('checkbox', { name: 'bluesky' }).uncheck();
    await page.getByLabel('Text').fill('Fresh rye today');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.waitForURL('**/board');
    await page
      .getByRole('status')
      .getByText(/will fail unless Mastodon is connected/)
      .waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'compose-warning');
  });
});
