// Pages are drawn in worker threads, never on the caller's event loop: wrapping and drawing
// a page of long text takes whole seconds of CPU, and in `npm start` the API shares the
// process with the render jobs. A page that runs past the time limit has its thread
// terminated (Piscina aborts a running task by ending its thread, and starts a fresh one);
// a thread's V8 heap is capped, and what Skia holds natively is bounded by the pixels it is
// handed (core/designs/pageImages.ts) and the canvas size. Threads run at a lower CPU
// priority than the API on Linux (nice +10), so a busy render yields to a request.
// Threads start as pages need them and end after IDLE_THREAD_MS without one: starting a
// thread (Skia, fonts) costs 0.7-1.1 s, so an editing session, rendering every few seconds,
// keeps its threads, while a quiet worker gives back the heap a large page grew.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { RenderedPng, RenderInput } from './canvas.ts';
import type { DrawingFile, DrawingFileRequest } from './drawing.ts';
import type * as PageThread from './pageThread.ts';

/** The thread module's export that draws a drawing (Piscina calls it by name). */
const DRAWING_IN_THREAD: keyof typeof PageThread = 'drawingInThread';

export type RenderPoolOptions = {
  /** Threads drawing at once; the rest wait their turn (the time limit starts when drawn). */
  threads?: number;
  /** A page drawing longer than this is stopped, its thread ended. */
  timeoutMs?: number;
  /** V8 heap of a thread, in MB; text and layers live there, pixels do not. */
  heapMb?: number;
  /**
   * Told of a thread that failed outside a page (one that could not start, say); without
   * it such a failure is only counted (`threadFailures`), never thrown.
   */
  onThreadError?: (err: Error) => void;
  /** The module a thread runs; tests give one that crashes. */
  threadModule?: URL;
};

/** One core stays with the API; on one core, renders share it (at a lower priority). */
export const DEFAULT_RENDER_THREADS = Math.max(1, availableParallelism() - 1);
export const DEFAULT_RENDER_TIMEOUT_MS = 30_000;
const DEFAULT_HEAP_MB = 256;
const IDLE_THREAD_MS = 5 * 60_000;

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

/** A page whose thread failed (or could not start); the pool starts afresh for the next page. */
export class RenderThreadFailed extends Error {
  constructor(cause: Error) {
    super(`the render thread failed: ${cause.message}`, { cause });
    this.name = 'RenderThreadFailed';
  }
}

/** A page asked of a pool that was closed (a worker stopping): it is not drawn. */
export class RenderPoolClosed extends Error {
  constructor() {
    super('the render pool was closed, so the page was not drawn');
    this.name = 'RenderPoolClosed';
  }
}

export type RenderedPage = RenderedPng & { threadId: number };

export type RenderPool = {
  /** The time limit of a page. */
  timeoutMs: number;
  /**
   * Draws one page in a thread; rejects with RenderTimedOut, RenderOutOfMemory, or
   * RenderPoolClosed once `close` was called. `timeoutMs` overrides the pool's limit for
   * this page.
   */
  render: (input: RenderInput, opts?: { timeoutMs?: number }) => Promise<RenderedPage>;
  /** Exports one drawing in a thread, under the same limits and turns as a page. */
  drawing: (req: DrawingFileRequest, opts?: { timeoutMs?: number }) => Promise<DrawingFile>;
  /** The ids of the threads alive now. */
  threadIds: () => number[];
  /** Threads that failed outside a page (reported to `onThreadError`). */
  threadFailures: () => number;
  /** Ends every thread; pages still drawing or waiting are rejected, later ones too. */
  close: () => Promise<void>;
};

/** A pool whose threads start with the first page drawn, so a process that never renders has none. */
export function createRenderPool(opts: RenderPoolOptions = {}): RenderPool {
  const threads = opts.threads ?? DEFAULT_RENDER_THREADS;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_RENDER_TIMEOUT_MS;
  const heapMb = opts.heapMb ?? DEFAULT_HEAP_MB;
  let pool: Piscina | undefined;
  let closed = false;
  let failures = 0;
  // Pages wait here rather than in Piscina's queue, so the time limit counts drawing only.
  let drawing = 0;
  const waiting: { go: () => void; stop: (err: Error) => void }[] = [];
  const turn = async () => {
    if (closed) throw new RenderPoolClosed();
    if (drawing < threads) drawing++;
    else await new Promise<void>((go, stop) => waiting.push({ go, stop }));
  };
  const done = () => {
    const next = waiting.shift();
    if (next) next.go();
    else drawing--;
  };
  // The pages each Piscina instance is drawing, to be stopped should it fail.
  const drawingOn = new Map<Piscina, Set<AbortController>>();
  const start = () => {
    const started = new Piscina({
      filename: (opts.threadModule ?? new URL('./pageThread.ts', import.meta.url)).href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: IDLE_THREAD_MS,
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      niceIncrement: 10,
    });
    drawingOn.set(started, new Set());
    // Piscina emits 'error' for a thread that fails with no page of its own (a thread failing
    // while drawing rejects that page): with no listener, the emit would end the process. A
    // thread that fails as it starts (a module that cannot load) is never replaced, so the
    // pages waiting for it are stopped now rather than at their time limit, and the next
    // page gets a new pool.
    started.on('error', (err: Error) => {
      failures++;
      opts.onThreadError?.(err);
      for (const page of drawingOn.get(started) ?? []) page.abort(new RenderThreadFailed(err));
      drawingOn.delete(started);
      if (pool === started) pool = undefined;
      void started.destroy().catch(() => undefined);
    });
    return started;
  };

  /** Runs `name` of the thread module (undefined: its default) on `input`, in turn. */
  const run = async (input: unknown, name: string | undefined, limit: number) => {
    await turn();
    const timer = AbortSignal.timeout(limit);
    const failed = new AbortController();
    const signal = AbortSignal.any([timer, failed.signal]);
    try {
      if (closed) throw new RenderPoolClosed();
      pool ??= start();
      const current = pool;
      drawingOn.get(current)?.add(failed);
      return await current.run(input, { signal, ...(name ? { name } : {}) });
    } catch (err) {
      if (closed) throw new RenderPoolClosed();
      if (failed.signal.aborted) throw failed.signal.reason;
      if (timer.aborted) throw new RenderTimedOut(limit);
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
        throw new RenderOutOfMemory(heapMb);
      throw err;
    } finally {
      for (const pages of drawingOn.values()) pages.delete(failed);
      done();
    }
  };
  // A transferred Buffer arrives as a plain Uint8Array.
  const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

  return {
    timeoutMs,
    async render(input, { timeoutMs: limit = timeoutMs } = {}) {
      const { png, box, warnings, threadId } = (await run(input, undefined, limit)) as RenderedPage;
      return { png: asBuffer(png), box, warnings, threadId };
    },
    async drawing(req, { timeoutMs: limit = timeoutMs } = {}) {
      const file = (await run(req, DRAWING_IN_THREAD, limit)) as DrawingFile;
      return {
        ...file,
        bytes: asBuffer(file.bytes),
        ...(file.preview ? { preview: asBuffer(file.preview) } : {}),
      };
    },
    threadIds: () => pool?.threads.map((t) => t.threadId) ?? [],
    threadFailures: () => failures,
    close: async () => {
      closed = true;
      drawingOn.clear();
      for (const page of waiting.splice(0)) page.stop(new RenderPoolClosed());
      await pool?.destroy();
      pool = undefined;
    },
  };
}
