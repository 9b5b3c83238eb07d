// The per-account request budget (CONTRACT.md: per account, shared by REST and GraphQL and
// counted for MCP, held in Postgres so every API process sees one budget).
//
// Counting with a database write on every request would halve API throughput, so each
// process counts in memory and, every FLUSH_MS, adds its new counts to the shared window row
// and reads back the total. A decision uses that shared total plus this process's unflushed
// count: exact within one process; across N processes an account can overshoot by what the
// other processes admitted in the last FLUSH_MS. The first request of an account in a window
// reads the shared total, so a process never starts a busy window from zero.
import type { Pool } from '../db/pool.ts';
import type { Budget } from './principal.ts';

const FLUSH_MS = 100;
const WINDOW_MS = 60_000;

type Entry = { window: number; shared: number; pending: number };

export type BudgetCounter = {
  /** Counts `n` requests (default 1) of `accountId` and returns the window after counting. */
  count(accountId: string, limit: number, n?: number): Promise<Budget>;
  /** Adds unflushed counts to Postgres and refreshes shared totals. */
  flush(): Promise<void>;
  /** Stops the timer after a last flush. */
  stop(): Promise<void>;
};

const windowOf = (now: number) => now - (now % WINDOW_MS);

export function createBudgetCounter(pool: Pool, flushMs = FLUSH_MS): BudgetCounter {
  const entries = new Map<string, Entry>();
  let flushing: Promise<void> | undefined;

  async function flushOnce(): Promise<void> {
    const current = windowOf(Date.now());
    const batch: { id: string; entry: Entry; sent: number }[] = [];
    for (const [id, entry] of entries) {
      if (entry.window < current) entries.delete(id);
      else batch.push({ id, entry, sent: entry.pending });
    }
    if (!batch.length) return;
    // Entries with nothing new are sent with 0 so they learn other processes' counts.
    const { rows } = await pool.query<{ account_id: string; used: number; window_start: Date }>({
      name: 'add_request_counts',
      text: `insert into request_budgets as rb (account_id, window_start, used)
             select * from unnest($1::bigint[], $2::timestamptz[], $3::int[])
             on conflict (account_id) do update set
               used = case when rb.window_start = excluded.window_start
                           then rb.used + excluded.used else excluded.used end,
               window_start = excluded.window_start
             returning account_id, used, window_start`,
      values: [
        batch.map((b) => b.id),
        batch.map((b) => new Date(b.entry.window)),
        batch.map((b) => b.sent),
      ],
    });
    const totals = new Map(rows.map((r) => [r.account_id, r]));
    for (const { id, entry, sent } of batch) {
      const total = totals.get(id);
      entry.pending -= sent;
      if (total && total.window_start.getTime() === entry.window) entry.shared = total.used;
    }
  }

  const flush = () => {
    flushing ??= flushOnce().finally(() => {
      flushing = undefined;
    });
    return flushing;
  };

  const timer = setInterval(() => void flush().catch(() => undefined), flushMs);
  timer.unref();

  return {
    async count(accountId, limit, n = 1) {
      const window = windowOf(Date.now());
      let entry = entries.get(accountId);
      if (!entry || entry.window !== window) {
        entry = { window, shared: 0, pending: 0 };
        entries.set(accountId, entry);
        const { rows } = await pool.query<{ used: number }>({
          name: 'read_request_count',
          text: 'select used from request_budgets where account_id = $1 and window_start = $2',
          values: [accountId, new Date(window)],
        });
        entry.shared = Math.max(entry.shared, rows[0]?.used ?? 0);
      }
      entry.pending += n;
      return { limit, used: entry.shared + entry.pending, resetAt: new Date(window + WINDOW_MS) };
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
