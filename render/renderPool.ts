// Pages are drawn in worker threads, never on the caller's event loop: wrapping and drawing
// a page of long text takes whole seconds of CPU, and in `npm start` the API shares the
// process with the render jobs. A page that runs past the time limit has its thread
// terminated (Piscina aborts a running task by ending its thread, and starts a fresh one);
// a thread's V8 heap is capped, and what Skia holds natively is bounded by the pixels it is
// handed (core/designs/pageImages.ts) and the canvas size. Threads run at a lower CPU
// priority than the API on Linux (nice +10), so a busy render yields to a request.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { RenderInput } from './canvas.ts';

export type RenderPoolOptions = {
  /** Threads drawing at once; the rest wait their turn (the time limit starts when drawn). */
  threads?: number;
  /** A page drawing longer than this is stopped, its thread ended. */
  timeoutMs?: number;
  /** V8 heap of a thread, in MB; text and layers live there, pixels do not. */
  heapMb?: number;
};

/** One core stays with the API; on one core, renders share it (at a lower priority). */
export const DEFAULT_RENDER_THREADS = Math.max(1, availableParallelism() - 1);
export const DEFAULT_RENDER_TIMEOUT_MS = 30_000;
const DEFAULT_HEAP_MB = 256;

/** A page that ran past the time limit; its thread was ended. */
export class RenderTimedOut extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`drawing a page took longer than ${timeoutMs / 1000} s, so it was stopped`);
    this.name = 'RenderTimedOut';
    this.timeoutMs = timeoutMs;
  }
}

/** A page whose thread ran out of its heap; the thread was ended. */
export class RenderOutOfMemory extends Error {
  readonly heapMb: number;
  constructor(heapMb: number) {
    super(`drawing a page needed more than the ${heapMb} MB a render thread may use`);
    this.name = 'RenderOutOfMemory';
    this.heapMb = heapMb;
  }
}

export type RenderedPage = { png: Buffer; threadId: number };

export type RenderPool = {
  /** The time limit of a page. */
  timeoutMs: number;
  /**
   * Draws one page in a thread; rejects with RenderTimedOut or RenderOutOfMemory. `timeoutMs`
   * overrides the pool's limit for this page.
   */
  render: (input: RenderInput, opts?: { timeoutMs?: number }) => Promise<RenderedPage>;
  /** The ids of the threads alive now. */
  threadIds: () => number[];
  /** Ends every thread; pages still drawing are rejected. */
  close: () => Promise<void>;
};

/** A pool whose threads start with the first page drawn, so a process that never renders has none. */
export function createRenderPool(opts: RenderPoolOptions = {}): RenderPool {
  const threads = opts.threads ?? DEFAULT_RENDER_THREADS;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_RENDER_TIMEOUT_MS;
  const heapMb = opts.heapMb ?? DEFAULT_HEAP_MB;
  let pool: Piscina | undefined;
  // Pages wait here rather than in Piscina's queue, so the time limit counts drawing only.
  let drawing = 0;
  const waiting: (() => void)[] = [];
  const turn = async () => {
    if (drawing < threads) drawing++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const done = () => {
    const next = waiting.shift();
    if (next) next();
    else drawing--;
  };

  return {
    timeoutMs,
    async render(input, { timeoutMs: limit = timeoutMs } = {}) {
      await turn();
      const signal = AbortSignal.timeout(limit);
      try {
        pool ??= new Piscina({
          filename: new URL('./pageThread.ts', import.meta.url).href,
          minThreads: threads,
          maxThreads: threads,
          idleTimeout: 60_000,
          resourceLimits: { maxOldGenerationSizeMb: heapMb },
          niceIncrement: 10,
        });
        const result = await pool.run(input, { signal });
        const { png, threadId } = result as { png: Uint8Array; threadId: number };
        return { png: Buffer.from(png.buffer, png.byteOffset, png.byteLength), threadId };
      } catch (err) {
        if (signal.aborted) throw new RenderTimedOut(limit);
        if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
          throw new RenderOutOfMemory(heapMb);
        throw err;
      } finally {
        done();
      }
    },
    threadIds: () => pool?.threads.map((t) => t.threadId) ?? [],
    close: async () => {
      await pool?.destroy();
      pool = undefined;
    },
  };
}
