// Telling "the database cannot be reached right now" from every other database error: the API
// answers the first 503 with Retry-After (a retry can help), the worker pauses and tries again
// with backoff; any other error keeps its meaning.

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

/**
 * Whether `err`, as node-postgres throws it, says the database is unreachable (refused, lost,
 * shutting down or starting, out of connections); an AggregateError (a connection tried on
 * several addresses) when any of its errors does. Causes are not followed: a failed request
 * to another server wraps its socket error in one, and is no database outage.
 */
export function isDatabaseUnreachable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 2) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
      return true;
  } else if (PG_MESSAGES.some((m) => m.test(err.message))) return true;
  return (
    err instanceof AggregateError && err.errors.some((e) => isDatabaseUnreachable(e, depth + 1))
  );
}
