// The dashboard session as its routes see it: the signed cookie, the preHandler that requires
// a session, and the hook that counts a session's requests against the account's budget.
// Every session route file uses these; this module imports none of them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MediaDeps } from '../../core/assets/service.ts';
import type { BudgetCounter } from '../../core/auth/service.ts';
import type { Config } from '../../core/config.ts';
import type { OAuthApps } from '../../core/connectors/schema.ts';
import type { Pool } from '../../core/db/pool.ts';
import type { RenderWaits } from '../../core/designs/service.ts';
import { DomainError } from '../../core/kernel/errors.ts';
import { principalForSession, sessionAuthenticated } from '../../core/sessions/service.ts';
import { chargeBudget } from '../auth.ts';

export const SESSION_COOKIE = 'sps_session';

export type SessionDeps = { pool: Pool; config: Config };
/**
 * What the dashboard's making pages also need: media, render waits, the request budget, and
 * the OAuthApps its connect flow uses.
 */
export type DashboardDeps = SessionDeps & {
  media: MediaDeps;
  renders: RenderWaits;
  budget: BudgetCounter;
  oauthApps: OAuthApps;
};

export const sessionRequired = (message: string) => new DomainError('session_required', message);

/** The session token from the signed cookie, or undefined when absent or tampered with. */
export function sessionToken(req: FastifyRequest): string | undefined {
  const raw = req.cookies[SESSION_COOKIE];
  if (!raw) return undefined;
  const unsigned = req.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? unsigned.value : undefined;
}

/** preHandler for routes that need a signed-in dashboard session. */
export function requireSession(pool: Pool) {
  return async (req: FastifyRequest) => {
    // Found already by the scope's budget hook (sessionWithinBudget).
    if (req.principal?.credential.kind === 'session') return;
    const token = sessionToken(req);
    const principal = token ? await principalForSession(pool, token) : undefined;
    if (!principal) throw sessionRequired('Sign in to the dashboard first (POST /auth/login).');
    req.principal = principal;
  };
}

/**
 * onRequest hook of the session routes that read or change the account's data (/app/api and
 * the key, webhook and competitor routes): a signed-in request is counted against the
 * account's request budget, the one REST, GraphQL and MCP share (CONTRACT.md), with the same
 * RateLimit headers and 429. It finds the session for requireSession; a request without one
 * passes on to be refused there (or served, where no session is needed).
 */
export function sessionWithinBudget({ pool, budget }: DashboardDeps) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const token = sessionToken(req);
    const auth = token ? await sessionAuthenticated(pool, token) : undefined;
    if (!auth) return;
    await chargeBudget(budget, auth, req, reply);
    req.principal = auth.principal;
  };
}
