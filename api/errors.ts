// One error handler for every HTTP surface: domain errors (request-validation failures
// among them, see ./validation.ts) keep their status and code, Fastify's own client errors
// keep their status with a `detail`, a database that cannot be reached is a 503 with
// Retry-After (a retry can help), and other 5xx messages are hidden (logged, never sent).
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnreachable } from '../core/db/unreachable.ts';
import { DomainError, missingReference, ValidationFailed } from '../core/kernel/errors.ts';
import { formatBytes } from '../core/kernel/sizes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the body must be, for the 415 of a route that takes something else than JSON. */
    bodyMediaHint?: string;
  }
}

const SEND_JSON = 'Unsupported Content-Type; send application/json.';

/** Stable codes for Fastify's request errors (its own codes are FST_*). */
const FASTIFY_CODES: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json', 'The body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [
    400,
    'invalid_json',
    'The body is empty but Content-Type says JSON.',
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', SEND_JSON],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    400,
    'bad_request',
    'Content-Length does not match the body.',
  ],
  FST_ERR_CTP_BODY_TOO_LARGE: [
    413,
    'body_too_large',
    'The body is larger than this route accepts.',
  ],
};

export function errorBody(err: DomainError) {
  if (err instanceof ValidationFailed) return { detail: err.issues, code: err.code };
  return { detail: err.message, code: err.code, ...err.extra };
}

/** Sends a domain error with its status and headers; `body` shapes it for the interface. */
export function sendError(
  reply: FastifyReply,
  err: DomainError,
  body: (err: DomainError) => unknown = errorBody,
) {
  reply.headers(err.headers);
  // The bearer layer names where OAuth clients sign in; other 401s say just the scheme.
  if (err.code === 'unauthenticated' && !reply.hasHeader('www-authenticate'))
    reply.header('WWW-Authenticate', 'Bearer');
  return reply.code(err.status).type('application/json').send(body(err));
}

/** What the log says of a foreign key's refusal, answered as not_found (core/kernel/errors.ts). */
const MISSED_ID_CHECK = 'a foreign key refused a write (answered not_found): an id went unchecked';

/**
 * What every surface (REST, GraphQL, MCP) answers for the errors that are not domain errors
 * but have a known meaning: a foreign key's refusal is not_found, logged as a missed id check;
 * a database out of reach is the 503 of databaseOutage. Anything else: undefined.
 */
export function knownFailure(
  err: unknown,
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
  context: Record<string, unknown> = {},
): DomainError | undefined {
  const missing = missingReference(err);
  if (missing) {
    log.error({ ...context, err }, MISSED_ID_CHECK);
    return missing;
  }
  return databaseOutage(err, log, context);
}

/** Any error a request raised, as the domain error it answers with (5xx logged, hidden). */
export function asDomainError(err: FastifyError, req: FastifyRequest): DomainError {
  if (err instanceof DomainError) return err;
  const known = knownFailure(err, req.log);
  if (known) return known;
  const fastify = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (fastify) {
    const hint = req.routeOptions.config?.bodyMediaHint;
    let message =
      fastify[2] === SEND_JSON && hint ? `Unsupported Content-Type; ${hint}` : fastify[2];
    const limit = req.routeOptions.bodyLimit;
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && limit)
      message = `The body is larger than this route accepts (at most ${formatBytes(limit)}).`;
    return new DomainError(fastify[0], fastify[1], message);
  }
  const status = err.statusCode ?? 500;
  if (status < 500) return new DomainError(status, 'bad_request', err.message);
  // A client that closed the connection mid-upload: its socket error (ECONNRESET) is its own
  // doing, no fault of the service's, and nobody reads the answer.
  if (!req.raw.complete && req.raw.readableAborted) {
    req.log.info({ err: err.message }, 'the client closed the request before its body ended');
    return new DomainError(400, 'bad_request', 'The request ended before its body did.');
  }
  req.log.error({ err }, 'request failed');
  return new DomainError(500, 'internal_error', 'Internal server error.');
}

/** Seconds a client waits before retrying while the database cannot be reached. */
export const DATABASE_RETRY_AFTER_S = 5;

/**
 * The 503 every surface answers when `err` says the database cannot be reached (REST and
 * GraphQL with Retry-After, MCP as an isError result): the body's `retry_after` repeats the
 * header for clients that see no headers (an MCP result's `_meta`, a GraphQL error's
 * extensions). Logged as one short line: an outage answers thousands, each stack the same.
 */
export function databaseOutage(
  err: unknown,
  log: Pick<FastifyBaseLogger, 'warn'>,
  context: Record<string, unknown> = {},
): DomainError | undefined {
  if (!isDatabaseUnreachable(err)) return undefined;
  const { code, message } = err as { code?: unknown; message?: unknown };
  log.warn({ ...context, db_error: code ?? message }, 'database unreachable');
  return new DomainError(
    503,
    'database_unavailable',
    'The service cannot reach its database right now; try again shortly.',
    { retry_after: DATABASE_RETRY_AFTER_S },
    { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
  );
}

export function errorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  return sendError(reply, asDomainError(err, req));
}

/**
 * Fastify's errors from before routing (a path that is not valid percent-encoding, an
 * over-long parameter), in the same shape as every other error.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const path = req.url.split('?')[0];
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return sendError(
      reply,
      new DomainError(414, 'uri_too_long', `A path segment of ${path} is too long.`),
    );
  if (err.code === 'FST_ERR_BAD_URL')
    return sendError(
      reply,
      new DomainError(
        400,
        'invalid_url',
        `The path ${path} is not valid percent-encoding: a % must be followed by two hex digits of UTF-8 (write % itself as %25).`,
      ),
    );
  return errorHandler(err, req, reply);
}

export function notFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  return sendError(
    reply,
    new DomainError(404, 'route_not_found', `No route ${req.method} ${req.url.split('?')[0]}.`),
  );
}
