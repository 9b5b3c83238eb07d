// Telling "the database cannot be reached right now" from every other error: the API answers
// the first 503 with Retry-After (a retry can help), the worker pauses and tries again with
// backoff; any other error keeps its meaning. Node's HTTP client, S3 and a client's aborted
// request raise the same socket codes (ECONNRESET, ECONNREFUSED, ...) as a lost database
// connection, so the codes are read only on errors the database connections raised: those
// that came through createPool's pool or a databaseClient (core/db/pool.ts), marked there.

const FROM_DATABASE = Symbol('raised by a database connection');

/**
 * Marks `err` as raised by a database connection (query, connect, a client's error) and
 * returns it. The mark is a non-enumerable symbol: logs and JSON never show it.
 */
export function markFromDatabase<T>(err: T): T {
  if (err && typeof err === 'object' && !(FROM_DATABASE in err) && Object.isExtensible(err))
    Object.defineProperty(err, FROM_DATABASE, { value: true });
  return err;
}

/** Whether `err` was raised by a database connection (markFromDatabase). */
export const fromDatabase = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && FROM_DATABASE in err;

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away or not taking sessions: 57P01 admin_shutdown (a stop while
 * a session is open), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting or stopping),
 * 53300 too_many_connections. Class 08 (connection exceptions) is matched as a class.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

/** What node-postgres throws, with no code, for a connection lost or never made in time. */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Connection ended unexpectedly/,
];

/** Whether a database connection's error says it is refused, lost or out of sessions. */
function saysUnreachable(err: unknown, depth: number): boolean {
  if (!(err instanceof Error) || depth > 2) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
      return true;
  } else if (PG_MESSAGES.some((m) => m.test(err.message))) return true;
  return err instanceof AggregateError && err.errors.some((e) => saysUnreachable(e, depth + 1));
}

/**
 * Whether `err` is a database connection's (markFromDatabase) and says the database is
 * unreachable (refused, lost, shutting down or starting, out of connections); an
 * AggregateError (a connection tried on several addresses) when any of its errors does.
 * An error from anywhere else is never an outage, whatever its code: a download the remote
 * server reset, an S3 request, a client that aborted its upload.
 */
export const isDatabaseUnreachable = (err: unknown): boolean =>
  fromDatabase(err) && saysUnreachable(err, 0);
