// One error handler for every HTTP surface: domain errors keep their status and code,
// request-validation failures become CONTRACT.md's 422 list, Fastify's own client errors
// keep their status with a `detail`, and 5xx messages are hidden (logged, never sent).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, ValidationFailed, type ValidationIssue } from '../core/errors.ts';

/** Stable codes for Fastify's request errors (its own codes are FST_*). */
const FASTIFY_CODES: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json', 'The body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [
    400,
    'invalid_json',
    'The body is empty but Content-Type says JSON.',
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    415,
    'unsupported_media_type',
    'Unsupported Content-Type; send application/json.',
  ],
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

type Location = 'body' | 'query' | 'path' | 'header';
const LOCATION: Record<string, Location> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

function validationIssues(err: FastifyError): ValidationIssue[] {
  const where = LOCATION[err.validationContext ?? 'body'] ?? 'body';
  return (err.validation ?? []).map((v) => ({
    loc: [
      where,
      ...v.instancePath
        .split('/')
        .filter(Boolean)
        .map((seg) => (/^\d+$/.test(seg) ? Number(seg) : seg)),
    ],
    msg: v.message ?? 'invalid value',
    type: String(v.keyword),
  }));
}

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
  if (err.code === 'unauthenticated') reply.header('WWW-Authenticate', 'Bearer');
  return reply.code(err.status).type('application/json').send(body(err));
}

/** Any error a request raised, as the domain error it answers with (5xx logged, hidden). */
export function asDomainError(err: FastifyError, req: FastifyRequest): DomainError {
  if (err instanceof DomainError) return err;
  if (hasZodFastifySchemaValidationErrors(err)) return new ValidationFailed(validationIssues(err));
  const known = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (known) return new DomainError(known[0], known[1], known[2]);
  const status = err.statusCode ?? 500;
  if (status < 500) return new DomainError(status, 'bad_request', err.message);
  req.log.error({ err }, 'request failed');
  return new DomainError(500, 'internal_error', 'Internal server error.');
}

export function errorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  return sendError(reply, asDomainError(err, req));
}

export function notFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  return sendError(
    reply,
    new DomainError(404, 'route_not_found', `No route ${req.method} ${req.url.split('?')[0]}.`),
  );
}
