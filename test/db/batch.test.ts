// The batching of core/db/batch.ts on its own: which calls go alone, which share a
// statement, and what a failed shared statement answers. The statements here are stand-ins
// that record their calls; test/api/batching.test.ts runs the real ones on Postgres.
import { DatabaseError } from 'pg';
import { describe, expect, it } from 'vitest';
import { batched, refusedForInput } from '../../core/db/batch.ts';
import type { Pool } from '../../core/db/pool.ts';

/** A statement that answers once `release` is called, recording each run's inputs. */
function standIn(fail?: () => Error) {
  const runs: number[][] = [];
  const pending: (() => void)[] = [];
  const wait = () => new Promise<void>((r) => pending.push(r));
  const call = batched<number, number>({
    one: async (_pool, n) => {
      runs.push([n]);
      await wait();
      if (n < 0) throw new Error(`refused ${n}`);
      return n * 10;
    },
    many: async (_pool, ns) => {
      runs.push(ns);
      await wait();
      if (fail) throw fail();
      return ns.map((n) => (n < 0 ? new Error(`refused ${n}`) : n * 10));
    },
    retryAlone: refusedForInput,
    maxInFlight: 2,
    maxBatch: 3,
  });
  const release = async () => {
    while (pending.length) pending.shift()!();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { runs, call, release };
}

const pool = {} as Pool; // the stand-ins never touch it

describe('batched statements', () => {
  it('run calls alone while few are running, and those that waited together', async () => {
    const s = standIn();
    const answers = Promise.allSettled([1, 2, 3, -4, 5, 6, 7].map((n) => s.call(pool, n)));
    expect(s.runs).toEqual([[1], [2]]); // two at once; the rest wait
    await s.release();
    expect(s.runs.slice(2)).toEqual([
      [3, -4, 5],
      [6, 7],
    ]);
    await s.release();
    const got = (await answers).map((a) => (a.status === 'fulfilled' ? a.value : a.reason.message));
    expect(got).toEqual([10, 20, 30, 'refused -4', 50, 60, 70]);
  });

  it('make each call alone, in turn, when Postgres refuses their statement for its input', async () => {
    const refused = Object.assign(new DatabaseError('bigint out of range', 0, 'error'), {
      code: '22003',
    });
    const s = standIn(() => refused);
    const answers = Promise.allSettled([1, 2, 3, -4].map((n) => s.call(pool, n)));
    await s.release();
    await s.release();
    expect(s.runs).toEqual([[1], [2], [3, -4], [3]]); // one at a time, in the batch's place
    for (let i = 0; i < 3; i++) await s.release();
    expect(s.runs).toEqual([[1], [2], [3, -4], [3], [-4]]);
    const got = (await answers).map((a) => (a.status === 'fulfilled' ? a.value : a.reason.message));
    expect(got).toEqual([10, 20, 30, 'refused -4']);
  });

  for (const [what, failure] of [
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    [
      'too many connections',
      Object.assign(new DatabaseError('too many clients', 0, 'error'), { code: '53300' }),
    ],
  ] as const)
    it(`answer every call with ${what}, without running them again`, async () => {
      const lost = failure;
      const s = standIn(() => lost);
      const answers = Promise.allSettled([1, 2, 3, 4].map((n) => s.call(pool, n)));
      for (let i = 0; i < 3; i++) await s.release();
      expect(s.runs).toEqual([[1], [2], [3, 4]]);
      const got = (await answers).map((a) => (a.status === 'fulfilled' ? a.value : a.reason));
      expect(got).toEqual([10, 20, lost, lost]);
    });
});
