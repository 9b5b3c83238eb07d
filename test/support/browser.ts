// Debian's Chromium driven by playwright-core (no browser download): one headless browser a
// test file, a fresh context a test, each page checked with axe-core and photographed into
// SCREENSHOTS (the CI keeps that folder).
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The browser for the file's tests, started once and closed with the file. */
export function useBrowser() {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `No Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH).`,
      );
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async page(baseURL: string, viewport = { width: 1440, height: 900 }) {
      // bypassCSP: axe-core is injected as an inline script, which the pages' CSP refuses.
      const context = await browser!.newContext({ baseURL, viewport, bypassCSP: true });
      return context.newPage();
    },
  };
}

/** Signs `who` in on the dashboard's sign-in page and waits for the board. */
export async function signIn(page: Page, who: { email: string; password: string }) {
  await page.goto('/sign-in');
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/board');
}

/** Creates an account on the dashboard's sign-up page (sign-up open) and waits for the board. */
export async function signUp(page: Page, email: string, password = 'a long enough password') {
  await page.goto('/sign-up');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/board');
}

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's serious and critical violations on the page as it is now. */
export async function accessibilityViolations(page: Page) {
  await page.addScriptTag({ path: axeSource });
  const result = await page.evaluate(async () => {
    // axe is injected as a global.
    const axe = (window as any).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return (
    result.violations as {
      id: string;
      impact: string;
      help: string;
      nodes: { target: string[] }[];
    }[]
  )
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
    );
}

/** A port nobody listens on now, for a server whose PUBLIC_BASE_URL must name its own. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Saves a full-page screenshot as SCREENSHOTS/<name>.png. */
export async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
