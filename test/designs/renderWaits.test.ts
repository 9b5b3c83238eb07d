// Waiting for renders (issue 14, finding 2): waits share the process's one LISTEN connection
// instead of holding a pooled connection each, and one account runs a bounded number of
// render-and-wait operations at once, refused before anything is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../core/db/pool.ts';
import { editDesign } from '../../core/designs/edit.ts';
import { createNativePost, NativePostInput } from '../../core/designs/nativePost.ts';
import {
  createRenderWaits,
  RENDERED_CHANNEL,
  type RenderWaits,
  waitForRender,
} from '../../core/designs/renderWaits.ts';
import { DesignEditInput } from '../../core/designs/schema.ts';
import { createDesign, previewDesign } from '../../core/designs/standalone.ts';
import { DomainError } from '../../core/kernel/errors.ts';
import type { Storage } from '../../core/storage/storage.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { makeAccount } from '../support/server.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.drop());

const caller = (acct: { accountId: string; brandId: string }) => ({
  accountId: acct.accountId,
  selectedBrandId: acct.brandId,
  plan: 'plus' as const,
  credential: { kind: 'api_key' as const, id: '1' },
});

async function designsOf(pool: Pool, accountId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    'select count(*)::int as n from designs where account_id = $1',
    [accountId],
  );
  return rows[0]!.n;
}

async function insertDesignRow(pool: Pool) {
  const acct = await makeAccount(pool);
  const { rows } = await pool.query<{ id: string }>(
    `insert into designs (account_id, brand_id, template, layout)
     values ($1, $2, 'blank', '{"canvas":{"aspect":"square","bg":"#ffffff"},"layers":[]}')
     returning id::text`,
    [acct.accountId, acct.brandId],
  );
  return rows[0]!.id;
}

const listeningBackends = async (pool: Pool) =>
  (
    await pool.query<{ pid: number }>(
      `select pid from pg_stat_activity
       where datname = current_database() and query like 'listen %'`,
    )
  ).rows.map((r) => r.pid);

/**
 * Resolves once `n` waiters are subscribed, the LISTEN is in effect, and each has read the
 * design's state (the pool is idle again).
 */
async function waitersSettled(renders: RenderWaits, pool: Pool, n: number) {
  await until(
    async () =>
      renders.notifications.listeners(RENDERED_CHANNEL) === n &&
      (await listeningBackends(pool)).length === 1 &&
      pool.totalCount === pool.idleCount &&
      pool.waitingCount === 0,
  );
}

async function until(check: () => boolean | Promise<boolean>) {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

describe('render waits', () => {
  it('twelve waiters on a pool of three connections are all woken by one notification', async () => {
    // With a pooled connection per waiter, three waiters would take the whole pool and the
    // rest, and the render's own update, would queue behind them until the waits time out.
    const pool = createPool(db.url, 3);
    const renders = createRenderWaits(pool, 100);
    try {
      const id = await insertDesignRow(pool);
      const waits = Array.from({ length: 12 }, () =>
        waitForRender({ pool, renders }, id, 1, 60_000),
      );
      await waitersSettled(renders, pool, 12);
      await pool.query('update designs set rendered_version = 1 where id = $1', [id]);
      await pool.query('select pg_notify($1, $2)', [RENDERED_CHANNEL, `${id}:1`]);
      const outcomes = await Promise.all(waits);
      expect(outcomes.every((o) => o.rendered)).toBe(true);
      expect(renders.notifications.listeners(RENDERED_CHANNEL)).toBe(0);
    } finally {
      await renders.notifications.close();
      await pool.end();
    }
  });

  it('a waiter whose listening connection broke is woken by a render that finishes afterwards', async () => {
    const renders = createRenderWaits(db.pool);
    try {
      const id = await insertDesignRow(db.pool);
      const wait = waitForRender({ pool: db.pool, renders }, id, 1, 60_000);
      await waitersSettled(renders, db.pool, 1);
      const [first] = await listeningBackends(db.pool);
      await db.pool.query('select pg_terminate_backend($1)', [first]);
      // The process listens again by itself, for the waiter it already has.
      await until(async () => {
        const pids = await listeningBackends(db.pool);
        return pids.length === 1 && pids[0] !== first;
      });
      await db.pool.query('update designs set rendered_version = 1 where id = $1', [id]);
      await db.pool.query('select pg_notify($1, $2)', [RENDERED_CHANNEL, `${id}:1`]);
      expect(await wait).toEqual({ rendered: true, error: null, warnings: [] });
    } finally {
      await renders.notifications.close();
    }
  });
});

describe('render-and-wait operations per account', () => {
  let renders: RenderWaits;
  beforeAll(() => {
    renders = createRenderWaits(db.pool, 2);
  });
  afterAll(() => renders.notifications.close());

  it('beyond the bound are refused with 429 and store nothing; another account is unaffected', async () => {
    const acct = await makeAccount(db.pool);
    const other = await makeAccount(db.pool);
    // No render worker runs: each operation waits out its (short) render wait.
    const deps = { pool: db.pool, publicBaseUrl: 'http://127.0.0.1', renders, renderWaitMs: 1500 };
    const make = (a: typeof acct) =>
      createDesign(deps, caller(a), { brand_uuid: a.brandUuid, template: 'blank' });
    const results = await Promise.allSettled([make(acct), make(acct), make(acct), make(other)]);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    const err = (refused[0] as PromiseRejectedResult).reason as DomainError;
    expect(err).toBeInstanceOf(DomainError);
    expect([err.status, err.code]).toEqual([429, 'too_many_renders']);
    expect(await designsOf(db.pool, acct.accountId)).toBe(2);
    expect(await designsOf(db.pool, other.accountId)).toBe(1);
    // Slots come back when the operations end.
    expect(renders.running.size).toBe(0);
  });
});

describe('every operation that waits for a render', () => {
  it('takes a slot of the account: with none free, each is refused with 429 and stores nothing', async () => {
    const renders = createRenderWaits(db.pool, 2);
    const acct = await makeAccount(db.pool);
    const deps = { pool: db.pool, publicBaseUrl: 'http://127.0.0.1', renders, renderWaitMs: 1 };
    const { rows } = await db.pool.query<{ id: string }>(
      `insert into designs (account_id, brand_id, template, layout)
       values ($1, $2, 'blank', '{"canvas":{"aspect":"square","bg":"#ffffff"},"layers":[]}')
       returning id::text`,
      [acct.accountId, acct.brandId],
    );
    const design_id = rows[0]!.id;
    const video = await db.pool.query<{ id: string }>(
      `insert into designs (account_id, brand_id, template, layout)
       values ($1, $2, 'blank',
               '{"canvas":{"type":"video","aspect":"square","duration_s":2,"fps":30,"bg":"#000000"},"layers":[]}')
       returning id::text`,
      [acct.accountId, acct.brandId],
    );
    const video_id = video.rows[0]!.id;
    const stored = async () =>
      (
        await db.pool.query(
          `select (select count(*)::int from designs where account_id = $1) as designs,
                  (select count(*)::int from posts where account_id = $1) as posts,
                  (select count(*)::int from jobs where account_id = $1) as jobs,
                  (select layout_version from designs where id = $2) as version`,
          [acct.accountId, design_id],
        )
      ).rows[0];
    const before = await stored();
    renders.running.set(acct.accountId, 2);
    const who = caller(acct);
    const operations = {
      createDesign: () =>
        createDesign(deps, who, { brand_uuid: acct.brandUuid, template: 'blank' }),
      createNativePost: () =>
        createNativePost(
          deps,
          who,
          NativePostInput.parse({
            platform: 'bluesky',
            body: 'Hi',
            brand_id: acct.brandId,
            layout: { layers: [] },
          }),
        ),
      editDesign: () =>
        editDesign(deps, who, { design_id }, DesignEditInput.parse({ layout: { layers: [] } })),
      previewDesign: () =>
        previewDesign(
          { ...deps, notifications: deps.renders.notifications, storage: {} as Storage },
          who,
          { design_id },
          { page: 0 },
        ),
      previewVideoFrames: () =>
        previewDesign(
          { ...deps, notifications: deps.renders.notifications, storage: {} as Storage },
          who,
          { design_id: video_id },
          { page: 0, times: [0.5] },
        ),
    };
    try {
      for (const [name, run] of Object.entries(operations)) {
        const err = await run().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect([name, (err as DomainError).status, (err as DomainError).code]).toEqual([
          name,
          429,
          'too_many_renders',
        ]);
      }
      expect(await stored()).toEqual(before);
      expect(renders.running.get(acct.accountId)).toBe(2);
    } finally {
      await renders.notifications.close();
    }
  });
});
