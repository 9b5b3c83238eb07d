// Drawing jobs in the render queue, with no worker running: a call that waits past its time
// is 409 drawing_pending and asking again answers the same job; one account's burst is
// queued behind other accounts' first drawings (its jobs' priorities count what it has
// queued already).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRenderSlot } from '../../core/designs/renderWaits.ts';
import { createRenderWaits, type RenderWaits } from '../../core/designs/service.ts';
import { type DrawingFileApiDeps, exportDrawing } from '../../core/drawings/exports.ts';
import { CreateDrawingInput } from '../../core/drawings/schema.ts';
import { createDrawing } from '../../core/drawings/service.ts';
import { workJobKey } from '../../core/jobs/tasks.ts';
import { DomainError } from '../../core/kernel/errors.ts';
import { makeAccount, makeKey } from '../support/server.ts';
import { type TestServer, useService } from '../support/service.ts';

const svc = useService();
let server: TestServer, renders: RenderWaits, deps: DrawingFileApiDeps;
beforeAll(() => {
  server = svc.server;
  renders = createRenderWaits(server.pool);
  deps = {
    pool: server.pool,
    notifications: renders.notifications,
    storage: svc.storage,
    publicBaseUrl: 'http://127.0.0.1:1',
    renderSlot: (accountId, work) => withRenderSlot(renders, accountId, work),
    waitS: 0.05,
  };
});
afterAll(() => renders.notifications.close());

/** An account with a key, as a caller, and one small drawing of it. */
async function callerWithDrawing() {
  const acct = await makeAccount(server.pool);
  await makeKey(server.pool, acct.accountId, ['media']);
  const caller = {
    accountId: acct.accountId,
    selectedBrandId: acct.brandId,
    credential: { kind: 'session' as const, id: '1' },
  };
  const drawing = await createDrawing(
    server.pool,
    caller,
    CreateDrawingInput.parse({ title: 'Queued', width: 50, height: 50 }),
  );
  return { caller, drawingId: drawing.id };
}

const pending = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe('drawing_pending');
};

/** The priorities of an account's queued drawing renders, in the order they were added. */
async function priorities(accountId: string) {
  const { rows } = await server.pool.query<{ id: string }>(
    `select id::text from jobs where account_id = $1 and kind = 'drawing_export' order by id`,
    [accountId],
  );
  const keys = rows.map((r) => workJobKey('drawing_export', r.id));
  const queued = await server.pool.query<{ key: string; priority: number }>(
    'select key, priority from graphile_worker.jobs where key = any($1)',
    [keys],
  );
  return keys.map((k) => queued.rows.find((q) => q.key === k)?.priority);
}

describe('drawing jobs waiting for a worker', () => {
  it('answer drawing_pending, and the same job when asked again', async () => {
    const { caller, drawingId } = await callerWithDrawing();
    const input = { drawing_id: drawingId, format: 'png' as const, scale: 1, transparent: false };
    await pending(exportDrawing(deps, caller, input));
    await pending(exportDrawing(deps, caller, input));
    expect(await priorities(caller.accountId)).toEqual([0]);
  });

  it("queue one account's burst behind another account's first drawing", async () => {
    const a = await callerWithDrawing();
    const b = await callerWithDrawing();
    for (const scale of [1, 2, 3])
      await pending(
        exportDrawing(deps, a.caller, {
          drawing_id: a.drawingId,
          format: 'png',
          scale,
          transparent: false,
        }),
      );
    await pending(
      exportDrawing(deps, b.caller, {
        drawing_id: b.drawingId,
        format: 'svg',
        scale: 1,
        transparent: false,
      }),
    );
    expect(await priorities(a.caller.accountId)).toEqual([0, 1, 2]);
    expect(await priorities(b.caller.accountId)).toEqual([0]);
  });
});
