// The one pg pool of a process, shared by the API, the domain and Graphile Worker.
import pg from 'pg';
import { markFromDatabase } from './unreachable.ts';

// bigint ids (int8) stay strings: CONTRACT.md serializes ids as strings everywhere, and a
// JavaScript number cannot hold every bigint. Counts cast to int in SQL where a number is wanted.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export type Pool = pg.Pool;
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Where lost connections are reported (a pino or Fastify logger). */
export type PoolLog = { warn: (obj: object, msg: string) => void };

/**
 * How long a query waits for a connection: a new one to a server that takes the connection
 * but never answers (a host gone without a reset, a stalled proxy), or a pooled one while all
 * are busy. Past it the query fails as unreachable (core/db/unreachable.ts): the API answers
 * 503 with Retry-After and workers pause, where without it they waited forever.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

// biome-ignore lint/suspicious/noExplicitAny: wraps pg's overloaded methods as they are
type Method = (...args: any[]) => any;

/**
 * `method` with every error it raises marked as the database's (core/db/unreachable.ts):
 * thrown, rejected, or passed to a callback (pg's callback forms, which the pool uses inside).
 */
function marking<M extends Method>(method: M): M {
  return function (this: unknown, ...args: unknown[]) {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function')
      args[last] = (err: unknown, ...rest: unknown[]) =>
        (callback as Method)(err ? markFromDatabase(err) : err, ...rest);
    let out: unknown;
    try {
      out = method.apply(this, args);
    } catch (err) {
      throw markFromDatabase(err);
    }
    return out instanceof Promise
      ? out.catch((err: unknown) => {
          throw markFromDatabase(err);
        })
      : out;
  } as M;
}

/** A database connection outside the pool (LISTEN), its errors marked as the pool's are. */
export function databaseClient(config: pg.ClientConfig): pg.Client {
  const client = new pg.Client(config);
  client.connect = marking(client.connect);
  client.query = marking(client.query);
  return client;
}

export function createPool(connectionString: string, max = 20, log?: PoolLog): Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // Every error a query or a checkout raises is marked as the database's: only those can mean
  // an outage (core/db/unreachable.ts). pool.query checks out through pool.connect, and a
  // client's own queries (transactions, Graphile Worker) go through its wrapped query.
  pool.connect = marking(pool.connect);
  pool.query = marking(pool.query);
  // A client losing its connection must not crash the process: the pool replaces idle ones,
  // and a query in flight on a broken client fails with its own error. Each loss is logged
  // once, from the client's handler (it hears idle and checked-out clients alike; the pool's
  // 'error' repeats it for idle ones only), so an operator sees Postgres go away or a
  // connection killed rather than nothing.
  // A terminated backend says so (57P01), then its socket ends: one loss, one line.
  const inUse = new WeakSet<pg.PoolClient>();
  const lost = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => inUse.add(client));
  pool.on('release', (_err, client) => inUse.delete(client));
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.query = marking(client.query);
    client.on('error', (err) => {
      markFromDatabase(err);
      if (lost.has(client)) return;
      lost.add(client);
      log?.warn(
        { err },
        inUse.has(client)
          ? 'a database connection in use was lost; its query fails, and the pool opens a new one when needed'
          : 'an idle database connection was lost; the pool opens a new one when needed',
      );
    });
  });
  return pool;
}

/** Runs `fn` in one transaction: row changes and the jobs they cause commit together. */
export async function withTransaction<T>(
  pool: Pool,
  fn: (tx: pg.PoolClient) => Promise<T>,
  /** `snapshot`: read only, and every statement sees the same committed state. */
  mode: 'write' | 'snapshot' = 'write',
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(
      mode === 'snapshot' ? 'begin isolation level repeatable read read only' : 'begin',
    );
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
