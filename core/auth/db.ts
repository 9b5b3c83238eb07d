// SQL for the shared request budget: one row per account holding its current one-minute
// window (sql/001, request_budgets). The counting rules are in ./budget.ts.
import type { Queryable } from '../db/pool.ts';

export type WindowCount = { account_id: string; used: number; window_start: Date };

/**
 * Adds each account's new requests to its window (a newer window replaces an older one) and
 * answers the resulting totals, in one statement for every account a process has counted.
 * A count may be negative (requests refunded after they were added); a total never goes
 * below 0. A late flush of an older window than the row's (from a slow process) changes
 * nothing, and gets no row back.
 */
export async function addRequestCounts(
  db: Queryable,
  counts: { accountId: string; window: Date; added: number }[],
): Promise<WindowCount[]> {
  const { rows } = await db.query<WindowCount>({
    name: 'add_request_counts',
    text: `insert into request_budgets as rb (account_id, window_start, used)
           select * from unnest($1::bigint[], $2::timestamptz[], $3::int[])
           on conflict (account_id) do update set
             used = case when rb.window_start = excluded.window_start
                         then greatest(0, rb.used + excluded.used)
                         else greatest(0, excluded.used) end,
             window_start = excluded.window_start
           where rb.window_start <= excluded.window_start
           returning account_id, used, window_start`,
    values: [
      counts.map((c) => c.accountId),
      counts.map((c) => c.window),
      counts.map((c) => c.added),
    ],
  });
  return rows;
}

/** The account's shared count in the window starting at `window` (0 when none). */
export async function readRequestCount(
  db: Queryable,
  accountId: string,
  window: Date,
): Promise<number> {
  const { rows } = await db.query<{ used: number }>({
    name: 'read_request_count',
    text: 'select used from request_budgets where account_id = $1 and window_start = $2',
    values: [accountId, window],
  });
  return rows[0]?.used ?? 0;
}
