// Waiting for renders (issue 14, finding 2): waits share the process's one LISTEN connection
// instead of holding a pooled connection each, and one account runs a bounded number of
// render-and-wait operations at once, refused before anything is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../core/db/pool.ts';
import {
  createRenderWaits,
  RENDERED_CHANNEL,
  type RenderWaits,
  waitForRender,
} from '../../core/designs/renderWaits.ts';
import { createDesign } from '../../core/designs/standalone.ts';
import { DomainError } from '../../core/errors.ts';
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

describe('render waits', () => {
  it('twelve waiters on a pool of three connections all see the render finish', async () => {
    // With a pooled connection per waiter, three waiters would take the whole pool and the
    // rest, and the render's own update, would queue behind them until the waits time out.
    const pool = createPool(db.url, 3);
    const renders = createRenderWaits(pool, 100);
    try {
      const acct = await makeAccount(pool);
      const { rows } = await pool.query<{ id: string }>(
        `insert into designs (account_id, brand_id, template, layout)
         values ($1, $2, 'blank', '{"canvas":{"aspect":"square","bg":"#ffffff"},"layers":[]}')
         returning id::text`,
        [acct.accountId, acct.brandId],
      );
      const id = rows[0]!.id;
      const waits = Array.from({ length: 12 }, () =>
        waitForRender({ pool, renders }, id, 1, 60_000),
      );
      await pool.query('update designs set rendered_version = 1 where id = $1', [id]);
      await pool.query(`select pg_notify($1, $2)`, [RENDERED_CHANNEL, `${id}:1`]);
      const outcomes = await Promise.all(waits);
      expect(outcomes.every((o) => o.rendered)).toBe(true);
    } finally {
      await renders.notifications.close();
      await pool.end();
    }
  });

  it('a waiter whose notification went missing still finds the render when the connection breaks', async () => {
    const renders = createRenderWaits(db.pool);
    try {
      const acct = await makeAccount(db.pool);
      const { rows } = await db.pool.query<{ id: string }>(
        `insert into designs (account_id, brand_id, template, layout)
         values ($1, $2, 'blank', '{"canvas":{"aspect":"square","bg":"#ffffff"},"layers":[]}')
         returning id::text`,
        [acct.accountId, acct.brandId],
      );
      const id = rows[0]!.id;
      const wait = waitForRender({ pool: db.pool, renders }, id, 1, 60_000);
      await new Promise((r) => setTimeout(r, 100));
      // Rendered without a notification, then the listening connection is killed.
      await db.pool.query('update designs set rendered_version = 1 where id = $1', [id]);
      await db.pool.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and query like 'listen %'`,
      );
      expect(await wait).toEqual({ rendered: true, error: null });
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
