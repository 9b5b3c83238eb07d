// Worker pools: task families an operator runs and sizes separately (CONTRACT.md "Jobs and
// pools"), so a long job of one family never holds the slots another family needs.
export const WORKER_POOLS = ['publish', 'render', 'video', 'generate'] as const;
export type WorkerPool = (typeof WORKER_POOLS)[number];

/** Jobs a pool runs at once when WORKER_CONCURRENCY_<POOL> is unset (video: one encode). */
export const defaultPoolConcurrency = (pool: WorkerPool, workerConcurrency: number): number =>
  pool === 'video' ? 1 : workerConcurrency;

/** A pool list naming an unknown pool: its message is the whole story (no stack). */
export class PoolError extends Error {}

/**
 * The pools a `--pool a,b` argument or WORKER_POOLS names; every pool when neither is given.
 * Throws a message naming the unknown ones and the known ones.
 */
export function parsePools(text: string | undefined): WorkerPool[] {
  if (text === undefined) return [...WORKER_POOLS];
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(WORKER_POOLS as readonly string[]).includes(name));
  if (unknown.length || !names.length)
    throw new PoolError(
      `unknown worker pool ${unknown.map((u) => `"${u}"`).join(', ') || '(none given)'}; pools are ${WORKER_POOLS.join(', ')}`,
    );
  return [...new Set(names)] as WorkerPool[];
}
