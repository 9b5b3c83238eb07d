// Render threads (render/renderPool.ts): a page is drawn in a worker thread, never on the
// caller's event loop, and a page that runs past its time limit has its thread ended.
import { threadId } from 'node:worker_threads';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { Layer, type LayerInput } from '../../core/designs/schema.ts';
import {
  createRenderPool,
  RenderPoolClosed,
  RenderThreadFailed,
  RenderTimedOut,
} from '../../render/renderPool.ts';

const page = (layers: LayerInput[]) => ({
  width: 200,
  height: 100,
  bg: '#ffffff',
  layers: layers.map((l) => Layer.parse(l)),
  images: new Map(),
});

/** Far more text than any layout may hold: seconds of wrapping and drawing. */
const endless = page(
  Array.from({ length: 160 }, () => ({
    kind: 'text',
    x: 0,
    y: 0,
    w: 10_000,
    size: 4,
    text: '漢字かなカナ'.repeat(900).slice(0, 5_000),
  })),
);

const pool = createRenderPool({ threads: 1, timeoutMs: 60_000 });
afterAll(() => pool.close());

describe('a render thread', () => {
  it('draws the page, and it is not the calling thread', async () => {
    const drawn = await pool.render(
      page([{ kind: 'shape', shape: 'rect', x: 0, y: 0, w: 100, h: 100, fill: '#ff0000' }]),
    );
    expect(drawn.threadId).not.toBe(threadId);
    expect(pool.threadIds()).toContain(drawn.threadId);
    const png = PNG.sync.read(drawn.png);
    expect([png.width, png.height]).toEqual([200, 100]);
    expect([...png.data.subarray(0, 3)]).toEqual([255, 0, 0]);
  });

  it('is ended when a page runs past its time limit, and a fresh one draws the next', async () => {
    const before = (await pool.render(page([]))).threadId;
    const stopped = pool.render(endless, { timeoutMs: 50 });
    await expect(stopped).rejects.toBeInstanceOf(RenderTimedOut);
    await expect(stopped).rejects.toThrow(/took longer than 0.05 s/);
    expect(pool.threadIds()).not.toContain(before);
    const next = await pool.render(page([]));
    expect(next.threadId).not.toBe(before);
  });
});

describe('a closed pool', () => {
  it('refuses a page at once (RenderPoolClosed), and so do pages that were waiting for a thread', async () => {
    const closing = createRenderPool({ threads: 1, timeoutMs: 60_000 });
    const drawing = closing.render(endless);
    const waiting = closing.render(page([]));
    await closing.close();
    await expect(drawing).rejects.toBeInstanceOf(RenderPoolClosed);
    await expect(waiting).rejects.toBeInstanceOf(RenderPoolClosed);
    await expect(closing.render(page([]))).rejects.toThrow(/render pool was closed/);
    expect(closing.threadIds()).toEqual([]);
  });
});

describe('a thread that fails', () => {
  it('as it starts is reported, not thrown: its page fails with why, and the next page tries afresh', async () => {
    const failed: Error[] = [];
    const broken = createRenderPool({
      threads: 1,
      timeoutMs: 60_000,
      threadModule: new URL('./brokenThread.ts', import.meta.url),
      onThreadError: (err) => failed.push(err),
    });
    try {
      for (const n of [1, 2]) {
        const drawn = broken.render(page([]));
        await expect(drawn).rejects.toBeInstanceOf(RenderThreadFailed);
        await expect(drawn).rejects.toThrow(/render thread failed: the render thread cannot start/);
        expect(broken.threadFailures()).toBe(n);
      }
      expect(failed).toHaveLength(2);
    } finally {
      await broken.close();
    }
  });

  it('while drawing rejects that page with the error, and a fresh thread takes the next', async () => {
    const crashing = createRenderPool({
      threads: 1,
      timeoutMs: 60_000,
      threadModule: new URL('./crashingThread.ts', import.meta.url),
    });
    try {
      await expect(crashing.render(page([]))).rejects.toThrow(/crashed while drawing/);
      await expect(crashing.render(page([]))).rejects.toThrow(/crashed while drawing/);
      expect(crashing.threadFailures()).toBe(0);
    } finally {
      await crashing.close();
    }
  });
});
