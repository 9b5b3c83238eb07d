// The dashboard in a real browser (Debian's Chromium): a newcomer signs up (the first account,
// SIGNUP=first), sees the empty board, a draft made through the API appears on it, is approved,
// then rejected with a reason; signs out, finds sign-up closed (saying how to sign in and how
// the operator opens it) and signs in again. axe-core finds no serious or critical
// violation on any page, at 1440 px and at 375 px, and each page is photographed.
import { beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, freePort, screenshot, useBrowser } from '../support/browser.ts';
import { call, makeKey } from '../support/server.ts';
import { useServer } from '../support/service.ts';

// The server's PUBLIC_BASE_URL names its own address: the pages' Origin must match it.
let port = 0;
beforeAll(async () => {
  port = await freePort();
});
const server = useServer(() => ({
  port,
  env: { SIGNUP: 'first', PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
}));
const browser = useBrowser();

describe('the dashboard in Chromium', () => {
  it('signs up, reviews a draft on the board, signs out and in, with no serious a11y violation', async () => {
    const page = await browser.page(server.baseUrl);
    await page.goto('/');
    await page.waitForURL('**/sign-in');
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in');

    await page.getByRole('link', { name: 'Create one' }).click();
    await page.waitForURL('**/sign-up');
    await page.getByLabel('E-mail').fill('me@example.com');
    await page.getByLabel(/^Password/).fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The API's 422 is shown beside the field it names; what was typed stays.
    await expect.poll(() => page.locator('#password-error').textContent()).toMatch(/10/);
    expect(await page.getByLabel('E-mail').inputValue()).toBe('me@example.com');
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'sign-up');
    await page.getByLabel(/^Password/).fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/board');
    await page.getByText('No posts yet').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'board-empty');

    // A draft made through the API (the account raised to plus for its key).
    const { rows } = await server.pool.query(
      `update accounts set plan = 'plus' where email = 'me@example.com' returning id::text`,
    );
    const key = await makeKey(server.pool, rows[0].id, ['read', 'publish']);
    const made = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'mastodon', body: 'Fresh rye, out of the oven at 8' },
    });
    expect(made.status).toBe(201);
    await page.reload();
    const card = page.getByRole('listitem', { name: `mastodon post ${made.body.id}` });
    await card.getByText('Fresh rye').waitFor();
    // A star marks it as a favorite, pressed until it is clicked again (then clicked once more).
    await card.getByRole('button', { name: /Favorite/ }).click();
    await card.getByRole('button', { name: /Favorite/, pressed: true }).waitFor();
    await card.getByRole('button', { name: /Favorite/ }).click();
    await card.getByRole('button', { name: /Favorite/, pressed: false }).waitFor();
    await card.getByRole('button', { name: /Favorite/ }).click();
    await card.getByRole('button', { name: /Favorite/, pressed: true }).waitFor();
    await screenshot(page, 'board');
    await card.getByRole('button', { name: 'Approve' }).click();
    const approved = page.locator('section[aria-labelledby="col-approved"]');
    await approved.getByText('Fresh rye').waitFor();
    await approved.getByRole('button', { name: 'Reject' }).click();
    await approved.getByLabel('Reason').fill('Not this week');
    await approved.getByRole('button', { name: 'Reject post' }).click();
    const rejected = page.locator('section[aria-labelledby="col-rejected"]');
    await rejected.getByText('Rejected: Not this week').waitFor();
    const post = await call(server, 'GET', `/v1/posts?status_filter=rejected`, { key });
    expect(post.body.map((p: any) => p.id)).toEqual([made.body.id]);
    expect(await accessibilityViolations(page)).toEqual([]);

    // Its page: the audit trail of what happened to it, and who did it.
    await rejected.getByRole('link', { name: 'Details and history' }).click();
    await page.waitForURL(`**/posts/${made.body.id}`);
    const trail = page.getByRole('table', { name: /Audit trail/ });
    await trail.getByRole('cell', { name: 'reject', exact: true }).waitFor();
    expect(await trail.getByRole('cell', { name: 'approve', exact: true }).count()).toBe(1);
    expect(await page.title()).toMatch(/^Post/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'post');
    await page.goBack();
    await rejected.getByText('Fresh rye').waitFor();

    // At 375 px the board is one column, still without serious violations.
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await accessibilityViolations(page)).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > 375);
    expect(overflow).toBe(false);
    await screenshot(page, 'board-375');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/sign-in');
    // Sign-up is over now that an account exists (SIGNUP=first): the page says an existing
    // account signs in, and how the operator opens sign-up.
    await page.goto('/sign-up');
    await page.getByRole('heading', { name: 'Sign-up is closed' }).waitFor();
    await page.locator('code', { hasText: 'SIGNUP=open' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill('me@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/board');
    await rejected.getByText('Fresh rye').waitFor();

    // The session ends on the server (expired, or signed out elsewhere): the next action
    // shows the sign-in page instead of failing in place.
    await server.pool.query('delete from sessions');
    await rejected.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL('**/sign-in');
  });
});
