// The request budget's background flush (core/auth/budget.ts): a failure is logged, not
// dropped, and the counts it could not send are sent by the next flush that succeeds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudgetCounter, LOG_EVERY_FAILURES } from '../../core/auth/budget.ts';
import { addRequestCounts } from '../../core/auth/db.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { awayFromMinuteBoundary, waitFor } from '../support/wait.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.drop());

const sharedCount = async (accountId: string) =>
  (
    await db.pool.query<{ used: number }>(
      'select used from request_budgets where account_id = $1',
      [accountId],
    )
  ).rows[0]?.used ?? 0;

describe('the budget flush', () => {
  it('logs a failing flush with its error and sends the counts once Postgres takes them', async () => {
    await awayFromMinuteBoundary();
    const logged: { obj: { err?: Error; failures?: number }; msg: string }[] = [];
    const budget = createBudgetCounter(
      db.pool,
      { error: (obj, msg) => logged.push({ obj, msg }) },
      5,
    );
    // Counts for an account id with no row yet: every flush fails on the foreign key.
    const accountId = '900001';
    await budget.count(accountId, 100, 3);
    const entry = await waitFor(async () => logged[0], { what: 'a logged flush failure' });
    expect(entry.msg).toMatch(/request budget flush failed/);
    expect(entry.obj.err?.message).toMatch(/foreign key/);
    expect(entry.obj.failures).toBe(1);

    await db.pool.query(
      `insert into accounts (id, email, password_hash) overriding system value
       values ($1, 'budget@example.com', 'x')`,
      [accountId],
    );
    await waitFor(async () => (await sharedCount(accountId)) === 3, { what: 'the kept counts' });
    // One line for a run of failures (then one per LOG_EVERY_FAILURES), not one per 5 ms tick.
    expect(logged.map((l) => l.obj.failures)).toEqual(
      logged.map((_, i) => i * LOG_EVERY_FAILURES + 1),
    );
    await budget.stop();
  });

  it('keeps a refund that comes after the refunded requests were flushed', async () => {
    await awayFromMinuteBoundary();
    const budget = createBudgetCounter(db.pool, { error: () => {} }, 60_000);
    const accountId = '900002';
    await db.pool.query(
      `insert into accounts (id, email, password_hash) overriding system value
       values ($1, 'refund@example.com', 'x')`,
      [accountId],
    );
    const counted = await budget.count(accountId, 100, 3);
    await budget.flush();
    expect(await sharedCount(accountId)).toBe(3);
    // Two of the three were refused after all: the next flush takes them back.
    budget.refund(accountId, 2, counted);
    expect((await budget.count(accountId, 100)).used).toBe(2);
    await budget.flush();
    expect(await sharedCount(accountId)).toBe(2);
    // A refund for a window that is over lowers nothing.
    budget.refund(accountId, 1, {
      ...counted,
      resetAt: new Date(counted.resetAt.getTime() - 60_000),
    });
    expect((await budget.count(accountId, 100, 0)).used).toBe(2);
    // A refund never takes the shared total below zero.
    budget.refund(accountId, 5, counted);
    await budget.flush();
    expect(await sharedCount(accountId)).toBe(0);
    await budget.stop();
  });

  it('a late flush of an older window leaves the newer one alone', async () => {
    const accountId = '900003';
    await db.pool.query(
      `insert into accounts (id, email, password_hash) overriding system value
       values ($1, 'late@example.com', 'x')`,
      [accountId],
    );
    const minute = 60_000;
    const now = Math.floor(Date.now() / minute) * minute;
    await addRequestCounts(db.pool, [{ accountId, window: new Date(now), added: 4 }]);
    const late = await addRequestCounts(db.pool, [
      { accountId, window: new Date(now - minute), added: 7 },
    ]);
    expect(late).toEqual([]);
    const { rows } = await db.pool.query(
      'select used, window_start from request_budgets where account_id = $1',
      [accountId],
    );
    expect(rows).toEqual([{ used: 4, window_start: new Date(now) }]);
  });
});
