// Natural batching of one statement's calls under load. While `maxInFlight` statements are
// running, a new call waits, and the calls that waited go together in the next statement:
// one round trip, one plan execution and (for a write) one commit then serve many requests.
// A call made while fewer are running goes at once and alone, so a lone request never waits
// for company. A call never joins a statement already running, so what it reads or checks is
// read after it was made (a deleted API key fails on the very next request).
import { DatabaseError } from 'pg';
import type { Pool } from './pool.ts';

export type Batched<I, O> = {
  /** The statement for one call, as it runs unbatched. */
  one: (pool: Pool, input: I) => Promise<O>;
  /**
   * The statement for several calls: each call's outcome, in order, or the error its call
   * rejects with. It must fail as a whole (a DatabaseError, nothing written) wherever any
   * call would fail alone; each call is then made alone for its own outcome.
   */
  many: (pool: Pool, inputs: I[]) => Promise<(O | Error)[]>;
  /** Statements at once per pool: enough to keep Postgres's cores busy, few of the pool's. */
  maxInFlight: number;
  /** Calls in one statement at most. */
  maxBatch: number;
};

type Waiting<I, O> = { input: I; resolve: (o: O) => void; reject: (err: unknown) => void };

class Batcher<I, O> {
  #waiting: Waiting<I, O>[] = [];
  #inFlight = 0;
  readonly #pool: Pool;
  readonly #spec: Batched<I, O>;

  constructor(pool: Pool, spec: Batched<I, O>) {
    this.#pool = pool;
    this.#spec = spec;
  }

  call(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      this.#pump();
    });
  }

  #pump() {
    while (this.#inFlight < this.#spec.maxInFlight && this.#waiting.length) {
      const batch = this.#waiting.splice(0, this.#spec.maxBatch);
      this.#inFlight++;
      void this.#run(batch).finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
  }

  async #run(batch: Waiting<I, O>[]) {
    if (batch.length === 1) return this.#alone(batch[0]!);
    let outcomes: (O | Error)[];
    try {
      outcomes = await this.#spec.many(
        this.#pool,
        batch.map((w) => w.input),
      );
    } catch (err) {
      // Postgres refused the statement, so none of it was written: each call is made alone
      // for its own outcome. Any other failure (a lost connection) may have come after the
      // commit, so it is every call's answer rather than a reason to write again.
      if (err instanceof DatabaseError) await Promise.all(batch.map((w) => this.#alone(w)));
      else for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i] as O | Error;
      if (outcome instanceof Error) w.reject(outcome);
      else w.resolve(outcome);
    });
  }

  #alone(w: Waiting<I, O>) {
    return this.#spec.one(this.#pool, w.input).then(w.resolve, w.reject);
  }
}

/**
 * `spec`'s statement as a function of a pool and one call's input, batched with the calls
 * other requests make on the same pool meanwhile.
 */
export function batched<I, O>(spec: Batched<I, O>): (pool: Pool, input: I) => Promise<O> {
  const batchers = new WeakMap<Pool, Batcher<I, O>>();
  return (pool, input) => {
    let batcher = batchers.get(pool);
    if (!batcher) {
      batcher = new Batcher(pool, spec);
      batchers.set(pool, batcher);
    }
    return batcher.call(input);
  };
}
