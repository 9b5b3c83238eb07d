// What the browser acceptance tests of the publishing platforms do alike in the dashboard:
// connect a platform from the Accounts page through its authorize page, and, once the worker
// published the posts, find them on the board and each post's page linking to the platform.
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { accessibilityViolations, screenshot } from './browser.ts';

/**
 * On the Accounts page: "Connect <name>", the platform's authorize page (a stand-in that
 * consents at once), then back with "<name> is connected." and the card showing `handle` active.
 */
export async function connectFromAccountsPage(page: Page, name: string, handle: string) {
  const card = page.getByRole('listitem', { name, exact: true });
  await card.getByRole('button', { name: `Connect ${name}` }).click();
  await page.waitForURL(new RegExp(`/settings/accounts\\?connected=${name.toLowerCase()}`));
  await page.getByText(`${name} is connected.`).waitFor();
  await expect.poll(() => card.textContent()).toMatch(new RegExp(`${handle}\\s*active`));
  return card;
}

/**
 * The board's published column holds each of `posts`, and each post's page links to
 * `permalink(post)` on the platform, says published and passes axe; screenshots of the board
 * (`boardShot`) and of each page (`shot(post)`).
 */
export async function seePublished<P extends { id: string; platform: string }>(
  page: Page,
  posts: P[],
  {
    permalink,
    boardShot,
    shot,
  }: {
    permalink: (post: P) => string;
    boardShot: string;
    shot: (post: P) => string;
  },
) {
  await page.getByRole('link', { name: 'Board', exact: true }).click();
  await page.waitForURL('**/board');
  const publishedColumn = page.getByRole('region', { name: /^published/ });
  for (const p of posts)
    await publishedColumn.getByRole('listitem', { name: `${p.platform} post ${p.id}` }).waitFor();
  await screenshot(page, boardShot);
  for (const p of posts) {
    await page.goto(`/posts/${p.id}`);
    const link = page.getByRole('link', { name: permalink(p) });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(permalink(p));
    await page.getByText('published', { exact: true }).first().waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, shot(p));
  }
}
