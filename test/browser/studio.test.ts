// The making pages in Chromium: the media library (an image in one request, a video of two
// chunks with the progress bar moving to 100 %), a design from a template (rendered by a real
// render worker, its text edited and re-rendered), a video design exported with live progress
// on the jobs page, a drawing drawn with a pen's pressure and saved, and usage. Every page is
// checked with axe-core at 1440 and 375 px and photographed.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerRunner } from '../../workers/index.ts';
import {
  accessibilityViolations,
  freePort,
  screenshot,
  signUp,
  useBrowser,
} from '../support/browser.ts';
import { makeNoiseVideo } from '../support/noiseVideo.ts';
import { startWorkerBeside, useServer } from '../support/service.ts';
import { solidPng } from '../support/uploads.ts';

let port = 0;
let worker: WorkerRunner;
let dir = '';
beforeAll(async () => {
  port = await freePort();
  dir = await mkdtemp(path.join(tmpdir(), 'studio-'));
});
const server = useServer(() => ({
  port,
  env: { SIGNUP: 'open', PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
}));
beforeAll(async () => {
  worker = await startWorkerBeside(server, { storage: true });
});
afterAll(async () => {
  await worker?.stop();
  await rm(dir, { recursive: true, force: true });
});
const browser = useBrowser();

async function checked(page: Page, name: string) {
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, name);
}

describe('the making pages in Chromium', () => {
  it('uploads media, makes and edits designs, exports a video, draws with a pen and shows usage', async () => {
    const page = await browser.page(server.baseUrl);
    await signUp(page, 'maker@example.com');

    // The library, empty, then an image and a video of two chunks.
    await page.getByRole('link', { name: 'Media' }).click();
    await page.getByText('No media yet').waitFor();
    await checked(page, 'media-empty');
    const upload = page.getByLabel('Upload an image, a video or audio');
    await upload.setInputFiles({
      name: 'photo.png',
      mimeType: 'image/png',
      buffer: await solidPng({ width: 120, height: 80 }, '#2a6f97'),
    });
    await page.getByText('Uploaded photo.png.').waitFor();
    await page.getByRole('list', { name: 'Assets' }).getByText('photo.png').waitFor();

    const video = path.join(dir, 'noise.mp4');
    await makeNoiseVideo(video, 1);
    const bytes = await readFile(video);
    expect(bytes.byteLength).toBeGreaterThan(8 * 1024 * 1024);
    // Every value the progress bar shows, as it shows them.
    await page.evaluate(() => {
      const seen: number[] = [];
      (window as unknown as { progressSeen: number[] }).progressSeen = seen;
      new MutationObserver(() => {
        const bar = document.querySelector<HTMLProgressElement>('#upload-progress');
        if (bar) seen.push(bar.value / bar.max);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await upload.setInputFiles({ name: 'noise.mp4', mimeType: 'video/mp4', buffer: bytes });
    await page.getByText('Uploaded noise.mp4.').waitFor({ timeout: 60_000 });
    const seen = await page.evaluate(
      () => (window as unknown as { progressSeen: number[] }).progressSeen,
    );
    expect(seen.some((v) => v > 0 && v < 1)).toBe(true);
    expect(Math.max(...seen)).toBe(1);
    await page
      .getByText(/noise\.mp4/)
      .first()
      .waitFor();
    await page.getByText(/video · 640×360/).waitFor();
    await expect
      .poll(() => page.locator('#storage-used').getAttribute('value'))
      .toBe(
        String(
          bytes.byteLength + (await solidPng({ width: 120, height: 80 }, '#2a6f97')).byteLength,
        ),
      );
    await checked(page, 'media');

    // A design from the template gallery, rendered, its text edited and rendered again.
    await page.getByRole('link', { name: 'Designs' }).click();
    await page.getByText('No designs yet').waitFor();
    await page.getByRole('list', { name: 'Templates' }).getByRole('img').first().waitFor();
    await checked(page, 'designs');
    await page.getByLabel('Headline', { exact: true }).fill('Launch day');
    await page.getByRole('button', { name: /^Use template Coming soon/ }).click();
    await page.waitForURL(/\/designs\/\d+$/);
    await page.getByRole('img', { name: 'Page 1 of 1 as rendered' }).waitFor();
    const text = page.getByRole('textbox', { name: /^Text/ }).filter({ hasText: 'Launch day' });
    await text.fill('Launch week');
    await page.getByRole('button', { name: 'Save and re-render' }).click();
    await page.getByText(/version 2 · .* · rendered/).waitFor();
    expect(await page.title()).toMatch(/^Design/);
    await checked(page, 'design');

    // A video design: poster frames, and an export followed on its job.
    await page.getByRole('link', { name: 'Designs' }).click();
    await page.getByRole('list', { name: 'Video templates' }).getByRole('button').first().click();
    await page.getByRole('heading', { name: /^Video design/ }).waitFor();
    await page.getByRole('button', { name: 'Show poster frames' }).click();
    await page.getByRole('img', { name: 'Frame at 0 s' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Export video' }).click();
    await page.getByText(/Export \d+: (queued|running|succeeded)/).waitFor();
    await checked(page, 'design-video');
    await page.getByText(/Export \d+: succeeded/).waitFor({ timeout: 120_000 });
    await page.getByRole('link', { name: 'Download' }).waitFor();

    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('cell', { name: 'video export' }).waitFor();
    await checked(page, 'jobs');

    // A drawing: a pen stroke with its pressure, saved onto the drawing model.
    await page.getByRole('link', { name: 'Drawings' }).click();
    await page.getByText('No drawings yet').waitFor();
    await page.getByLabel('Title').fill('Sketch');
    await page.getByRole('button', { name: 'New drawing' }).click();
    await page.waitForURL(/\/drawings\/\d+$/);
    const surface = page.getByRole('img', { name: /^Sketch/ });
    const box = (await surface.boundingBox())!;
    const at = (fx: number, fy: number, pressure: number) => ({
      pointerId: 7,
      pointerType: 'pen',
      isPrimary: true,
      bubbles: true,
      pressure,
      clientX: box.x + box.width * fx,
      clientY: box.y + box.height * fy,
    });
    await surface.dispatchEvent('pointerdown', at(0.2, 0.2, 0.3));
    await surface.dispatchEvent('pointermove', at(0.5, 0.4, 0.9));
    await surface.dispatchEvent('pointermove', at(0.8, 0.6, 0.6));
    await surface.dispatchEvent('pointerup', at(0.8, 0.6, 0));
    // And one with the mouse.
    await page.mouse.move(box.x + 20, box.y + 60);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + 120, { steps: 5 });
    await page.mouse.up();
    await page.getByRole('button', { name: 'Save (2 new)' }).click();
    await page.getByText(/Version 2 · 2 saved stroke/).waitFor();
    const { rows } = await server.pool.query(`select strokes from drawings where title = 'Sketch'`);
    const pressures = rows[0].strokes[0].points.map((p: number[]) => p[2]);
    expect(pressures).toEqual([0.3, 0.9, 0.6]);
    await checked(page, 'drawing');
    await page.getByRole('link', { name: 'Drawings' }).click();
    await page.getByRole('link', { name: 'Sketch' }).waitFor();
    await checked(page, 'drawings');

    await page.getByRole('link', { name: 'Usage' }).click();
    await page
      .getByText(/of 1\.0 GB|of \d+ MB|of \d+\.\d GB/)
      .first()
      .waitFor();
    await checked(page, 'usage');

    // At 375 px: nothing wider than the screen, still no serious violation.
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [link, name, url] of [
      ['Media', 'media-375', '/media'],
      ['Designs', 'designs-375', '/designs'],
      ['Drawings', 'drawings-375', '/drawings'],
      ['Jobs', 'jobs-375', '/jobs'],
      ['Usage', 'usage-375', '/usage'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.waitForURL(`**${url}`);
      await page
        .getByRole('heading', { level: 1, name: link === 'Media' ? 'Media library' : link })
        .waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth > 375), link).toBe(
        false,
      );
      await checked(page, name);
    }
  });
});
