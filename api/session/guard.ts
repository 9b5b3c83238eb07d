// Cross-site request guards of the session routes (CONTRACT.md): a session route refuses bearer
// credentials and a state-changing request from a foreign Origin; under /app/api (and on the
// OAuth consent page) a state-changing request also needs a same-origin `Origin` (present, not
// merely not foreign) and the session's CSRF token in `X-CSRF-Token`.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { forbidden } from '../../core/kernel/errors.ts';
import { type SessionDeps, sessionRequired, sessionToken } from './sessionCookie.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The session's CSRF token: derived from its (HttpOnly) token, so a page elsewhere cannot know it. */
export const csrfTokenOf = (session: string) =>
  createHash('sha256').update(`csrf:${session}`).digest('base64url');

/**
 * onRequest hook of every session route: a request with a bearer credential is a 401 (an API
 * key cannot use a session route), and a state-changing one from a foreign Origin a 403.
 */
export function sessionOriginGuard(config: SessionDeps['config']) {
  const origin = new URL(config.publicBaseUrl).origin;
  return async (req: FastifyRequest) => {
    if (req.headers.authorization) {
      throw sessionRequired('This route needs a dashboard session; API keys cannot use it.');
    }
    const from = req.headers.origin;
    if (STATE_CHANGING.has(req.method) && from !== undefined && from !== origin) {
      throw forbidden(
        'origin_mismatch',
        `Requests from origin ${from} are not accepted here; only pages served from ${origin} (PUBLIC_BASE_URL) may send them.`,
      );
    }
  };
}

/**
 * The /app/api scope's guard (and the consent page's): a state-changing request comes from a
 * page of ours (its Origin) and carries the session's CSRF token; one without a session is a 401.
 */
export function dashboardGuard(config: SessionDeps['config']) {
  const origin = new URL(config.publicBaseUrl).origin;
  return async (req: FastifyRequest) => {
    if (!STATE_CHANGING.has(req.method)) return;
    const token = sessionToken(req);
    if (!token) throw sessionRequired('Sign in to the dashboard first.');
    if (req.headers.origin !== origin)
      throw forbidden('origin_required', `Send this from a page of ${origin} (its Origin header).`);
    const sent = Buffer.from(String(req.headers['x-csrf-token'] ?? ''));
    const expected = Buffer.from(csrfTokenOf(token));
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
      throw forbidden(
        'csrf_required',
        "The X-CSRF-Token header is missing or stale: send the csrf_token that GET /app/api/session answers for this session (the dashboard's page reloads it).",
      );
  };
}
