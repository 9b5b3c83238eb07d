// The per-account request budget (CONTRACT.md: per account, shared by REST and GraphQL and
// counted for MCP, held in Postgres so every API process sees one budget).
//
// Counting with a database write on every request would halve API throughput, so each
// process counts in memory and, every FLUSH_MS, adds its new counts to the shared window row
// and reads back the total. A decision uses that shared total plus this process's unflushed
// count: exact within one process; across N processes an account can overshoot by what the
// other processes admitted in the last FLUSH_MS. The first request of an account in a window
// reads the shared total, so a process never starts a busy window from zero. A flush that
// fails (Postgres away) is logged and its counts kept for the next one.
import type { Pool } from '../db/pool.ts';
import { addRequestCounts, readRequestCount } from './db.ts';

const FLUSH_MS = 100;
const WINDOW_MS = 60_000;
/** While flushes keep failing, one log line per this many failures rather than ten a second. */
export const LOG_EVERY_FAILURES = 600;

/** Where a failed background flush is reported (a pino or Fastify logger). */
/** The account's one-minute request window after counting the current request. */
export type Budget = { limit: number; used: number; resetAt: Date };

export type BudgetLog = { error: (obj: object, msg: string) => void };

type Entry = { window: number; shared: number; pending: number };

export type BudgetCounter = {
  /** Counts `n` requests (default 1) of `accountId` and returns the window after counting. */
  count(accountId: string, limit: number, n?: number): Promise<Budget>;
  /**
   * count without waiting, when this process already holds the account's current window
   * (from its second request in a minute on); undefined, with nothing counted, when not.
   */
  countNow(accountId: string, limit: number, n?: number): Budget | undefined;
  /**
   * Takes back `n` requests counted in the window `counted` (a Budget this counter returned)
   * but refused before any work ran; nothing once that window is over (a newer one's count
   * is not this request's to lower).
   */
  refund(accountId: string, n: number, counted: Budget): void;
  /** Adds unflushed counts to Postgres and refreshes shared totals. */
  flush(): Promise<void>;
  /** Stops the timer after a last flush. */
  stop(): Promise<void>;
};

const windowOf = (now: number) => now - (now % WINDOW_MS);

export function createBudgetCounter(pool: Pool, log: BudgetLog, flushMs = FLUSH_MS): BudgetCounter {
  const entries = new Map<string, Entry>();
  let flushing: Promise<void> | undefined;
  let failures = 0;

  async function flushOnce(): Promise<void> {
    const current = windowOf(Date.now());
    const batch: { id: string; entry: Entry; sent: number }[] = [];
    for (const [id, entry] of entries) {
      if (entry.window < current) entries.delete(id);
      else batch.push({ id, entry, sent: entry.pending });
    }
    if (!batch.length) return;
    // Entries with nothing new are sent with 0 so they learn other processes' counts.
    const rows = await addRequestCounts(
      pool,
      batch.map((b) => ({ accountId: b.id, window: new Date(b.entry.window), added: b.sent })),
    );
    const totals = new Map(rows.map((r) => [r.account_id, r]));
    for (const { id, entry, sent } of batch) {
      const total = totals.get(id);
      entry.pending -= sent;
      if (total && total.window_start.getTime() === entry.window) entry.shared = total.used;
    }
  }

  // A flush under way took its batch when it began: a caller that asks meanwhile (its counts
  // may be newer) gets one more flush after it, shared by everyone who asks until it starts.
  let again: Promise<void> | undefined;
  const flush = (): Promise<void> => {
    if (!flushing) {
      flushing = flushOnce().finally(() => {
        flushing = undefined;
      });
      return flushing;
    }
    again ??= flushing
      .catch(() => undefined)
      .then(() => {
        again = undefined;
        return flush();
      });
    return again;
  };

  // The timer's flushes have no caller to throw to: a failure is logged (the first of a run of
  // failures, then every LOG_EVERY_FAILURES-th), and the unsent counts wait for the next one.
  const flushInBackground = () =>
    flush().then(
      () => {
        failures = 0;
      },
      (err: unknown) => {
        if (failures++ % LOG_EVERY_FAILURES === 0)
          log.error(
            { err, failures },
            'request budget flush failed; counts stay in this process until one succeeds',
          );
      },
    );
  const timer = setInterval(() => void flushInBackground(), flushMs);
  timer.unref();

  const counted = (entry: Entry, limit: number, n: number): Budget => {
    entry.pending += n;
    return {
      limit,
      used: entry.shared + entry.pending,
      resetAt: new Date(entry.window + WINDOW_MS),
    };
  };

  return {
    async count(accountId, limit, n = 1) {
      const window = windowOf(Date.now());
      let entry = entries.get(accountId);
      if (!entry || entry.window !== window) {
        entry = { window, shared: 0, pending: 0 };
        entries.set(accountId, entry);
        const used = await readRequestCount(pool, accountId, new Date(window));
        entry.shared = Math.max(entry.shared, used);
      }
      return counted(entry, limit, n);
    },
    countNow(accountId, limit, n = 1) {
      const entry = entries.get(accountId);
      if (entry && entry.window === windowOf(Date.now())) return counted(entry, limit, n);
      return undefined;
    },
    refund(accountId, n, counted) {
      // The unflushed count may go below zero: a flush may have sent the refunded requests
      // already, and the next one takes them back from the shared total (clamped at 0 there).
      const entry = entries.get(accountId);
      if (entry && entry.window + WINDOW_MS === counted.resetAt.getTime()) entry.pending -= n;
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
