// How the API waits for renders: on the process's one LISTEN connection (core/db/notifications.ts),
// never on a pooled connection of its own, and at most a few renders at once per account, so
// one account's burst of design calls can neither drain the pool nor fill the render queue.
// renderAndWait is the one way a design operation queues a render and waits for it.

import { createNotifications, type Notifications } from '../db/notifications.ts';
import type { Pool } from '../db/pool.ts';
import { DomainError } from '../kernel/errors.ts';
import { renderedPages, renderStatus } from './db.ts';
import type { DesignRow, RenderWarning } from './schema.ts';
import { isVideoLayout } from './videoLayout.ts';

export const RENDERED_CHANNEL = 'design_rendered';

/** Design operations (each renders and waits) one account may have running in one process. */
export const RENDERS_PER_ACCOUNT = 4;

export type RenderWaits = {
  notifications: Notifications;
  /** Running render-and-wait operations per account. */
  running: Map<string, number>;
  perAccount: number;
};

export function createRenderWaits(pool: Pool, perAccount = RENDERS_PER_ACCOUNT): RenderWaits {
  return { notifications: createNotifications(pool), running: new Map(), perAccount };
}

/**
 * Runs a design operation that renders and waits, refused (429, before anything is stored)
 * while the account already has `perAccount` of them running here.
 */
export async function withRenderSlot<T>(
  waits: RenderWaits,
  accountId: string,
  operation: () => Promise<T>,
): Promise<T> {
  const running = waits.running.get(accountId) ?? 0;
  if (running >= waits.perAccount)
    throw new DomainError(
      'too_many_renders',
      `This account already has ${waits.perAccount} renders in progress (designs, previews or drawings); wait for one to finish, then try again.`,
      {},
      { headers: { 'Retry-After': '5' } },
    );
  waits.running.set(accountId, running + 1);
  try {
    return await operation();
  } finally {
    const left = (waits.running.get(accountId) ?? 1) - 1;
    if (left > 0) waits.running.set(accountId, left);
    else waits.running.delete(accountId);
  }
}

export type RenderOutcome = {
  rendered: boolean;
  error: string | null;
  /** What the render could not show (text that did not fit), when it rendered. */
  warnings: RenderWarning[];
};

/** Waits until the design's `version` rendered or failed, or the time is up. */
export async function waitForRender(
  deps: { pool: Pool; renders: RenderWaits },
  designId: string,
  version: number,
  timeoutMs: number,
): Promise<RenderOutcome> {
  let wake: () => void = () => {};
  const nextWake = () =>
    new Promise<false>((resolve) => {
      wake = () => resolve(false);
    });
  let woken = nextWake();
  const unsubscribe = await deps.renders.notifications.subscribe(RENDERED_CHANNEL, (payload) => {
    if (payload === undefined || payload === `${designId}:${version}`) wake();
  });
  const state = () => renderStatus(deps.pool, designId);
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    let row = await state();
    // A lost connection wakes every waiter early: it looks again and waits out its time.
    while (row && row.rendered_version !== version && !row.render_error) {
      const timedOut = await Promise.race([woken, deadline]);
      woken = nextWake();
      row = await state();
      if (timedOut) break;
    }
    if (!row) return { rendered: false, error: 'The design no longer exists.', warnings: [] };
    if (row.rendered_version === version)
      return { rendered: true, error: null, warnings: row.render_warnings };
    return {
      rendered: false,
      warnings: [],
      error:
        row.render_error ??
        `Rendering did not finish within ${timeoutMs / 1000} s; it goes on, retry PATCH /v1/posts/{id}/design later.`,
    };
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}

export type DesignDeps = {
  pool: Pool;
  publicBaseUrl: string;
  /** The process's render waits (one LISTEN connection, a bound per account). */
  renders: RenderWaits;
  renderWaitMs?: number;
};

/** How long the API waits for a render before answering with `render_error`. */
export const RENDER_WAIT_MS = 15_000;

/**
 * A render's outcome as an operation answers it: its page assets, or why there are none, and
 * what the pages could not show.
 */
export type RenderedPages = { pageIds: string[]; error: string | null; warnings: RenderWarning[] };

/** Waits for the design's current render and answers its page assets, or why there are none. */
async function awaitPages(
  deps: DesignDeps,
  design: Pick<DesignRow, 'id' | 'layout_version'>,
): Promise<RenderedPages> {
  const outcome = await waitForRender(
    deps,
    design.id,
    design.layout_version,
    deps.renderWaitMs ?? RENDER_WAIT_MS,
  );
  const pageIds = outcome.rendered ? await renderedPages(deps.pool, design.id) : [];
  return { pageIds, error: outcome.error, warnings: outcome.warnings };
}

/**
 * The one way a design operation waits for a render: `queue` (which stores the change and
 * queues its render in one transaction, or only names the design to wait for) runs while the
 * account holds one of its render slots, refused with 429 `too_many_renders` before anything
 * is stored when none is free; then the render is waited for, bounded, in the same slot.
 */
export function renderAndWait<
  T extends { design: Pick<DesignRow, 'id' | 'layout_version' | 'layout'> },
>(deps: DesignDeps, accountId: string, queue: () => Promise<T>): Promise<T & RenderedPages> {
  return withRenderSlot(deps.renders, accountId, async () => {
    const queued = await queue();
    // A video design renders no pages (export_video makes its file): nothing to wait for.
    if (isVideoLayout(queued.design.layout))
      return { ...queued, pageIds: [], error: null, warnings: [] };
    return { ...queued, ...(await awaitPages(deps, queued.design)) };
  });
}
