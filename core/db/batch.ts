// Natural batching of one statement's calls under load. While `maxInFlight` statements are
// running, a new call waits, and the calls that waited go together in the next statement:
// one round trip, one plan execution and (for a write) one commit then serve many requests.
// A call made while fewer are running goes at once and alone, so a lone request never waits
// for company. A call never joins a statement already running, so what it reads or checks is
// read after it was made (a deleted API key fails on the very next request).
// A shared statement Postgres refuses for one call's input is made call by call, one after
// the other, in the shared statement's place (Batched.retryAlone); any other failure is every
// call's answer. Calls also wait on each other's locks: a draft whose account row is locked
// (an account being deleted) holds up the drafts sharing its statement.
import { DatabaseError } from 'pg';
import type { Pool } from './pool.ts';

export type Batched<I, O> = {
  /** The statement for one call, as it runs unbatched. */
  one: (pool: Pool, input: I) => Promise<O>;
  /**
   * The statement for several calls: each call's outcome, in order, or the error its call
   * rejects with. Where any call would fail alone, it fails as a whole.
   */
  many: (pool: Pool, inputs: I[]) => Promise<(O | Error)[]>;
  /**
   * Whether `many`'s error is one a call's own input may have caused, certainly before
   * anything was written, so each call is made alone (one after the other) for its own
   * answer. Any other error (a lost connection, a cancelled backend: possibly after the
   * commit; too many connections) is every call's answer, and nothing is made twice.
   */
  retryAlone: (err: unknown) => boolean;
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
      void this.#run(batch)
        .catch((err) => {
          for (const w of batch) w.reject(err);
        })
        .finally(() => {
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
      // Alone one after the other: the retries hold this statement's place, no more.
      if (this.#spec.retryAlone(err)) for (const w of batch) await this.#alone(w);
      else for (const w of batch) w.reject(err);
      return;
    }
    if (outcomes.length !== batch.length)
      throw new Error(`a shared statement answered ${outcomes.length} of ${batch.length} calls`);
    batch.forEach((w, i) => {
      const outcome = outcomes[i] as O | Error;
      if (outcome instanceof Error) w.reject(outcome);
      else w.resolve(outcome);
    });
  }

  #alone(w: Waiting<I, O>) {
    // A statement that throws before its promise (a bug) still answers the call.
    let answer: Promise<O>;
    try {
      answer = this.#spec.one(this.#pool, w.input);
    } catch (err) {
      answer = Promise.reject(err);
    }
    return answer.then(w.resolve, w.reject);
  }
}

/**
 * For `retryAlone`: Postgres refused the statement for data it was given (SQLSTATE classes 22,
 * data exception, and 23, integrity constraint violation), which it does before committing.
 */
export const refusedForInput = (err: unknown): boolean =>
  err instanceof DatabaseError && /^2[23]/.test(err.code ?? '');

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
