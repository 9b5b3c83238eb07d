// Dashboard session routes (CONTRACT.md): /auth, /apikeys, /webhooks, /competitors, /app/api.
// They refuse bearer credentials, and refuse state-changing requests from a foreign Origin.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { MediaDeps } from '../../core/assets/service.ts';
import type { BudgetCounter } from '../../core/auth/budget.ts';
import type { Config } from '../../core/config.ts';
import type { Pool } from '../../core/db/pool.ts';
import type { RenderWaits } from '../../core/designs/renderWaits.ts';
import { DomainError, forbidden } from '../../core/kernel/errors.ts';
import { principalForSession, sessionAuthenticated } from '../../core/sessions/service.ts';
import { chargeBudget } from '../auth.ts';
import { activityRoutes } from './activity.ts';
import { apiKeyRoutes } from './apikeys.ts';
import { appRoutes, dashboardGuard } from './app.ts';
import { authRoutes } from './auth.ts';
import { competitorRoutes } from './competitors.ts';
import { designRoutes } from './designs.ts';
import { drawingRoutes } from './drawings.ts';
import { libraryRoutes } from './library.ts';
import { webhookRoutes } from './webhooks.ts';

export const SESSION_COOKIE = 'sps_session';
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export type SessionDeps = { pool: Pool; config: Config };
/** What the dashboard's making pages also need: media, render waits and the request budget. */
export type DashboardDeps = SessionDeps & {
  media: MediaDeps;
  renders: RenderWaits;
  budget: BudgetCounter;
};

export const sessionRequired = (message: string) =>
  new DomainError(401, 'session_required', message);

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

export const sessionRoutes: FastifyPluginAsync<DashboardDeps> = async (app, deps) => {
  const origin = new URL(deps.config.publicBaseUrl).origin;
  app.addHook('onRequest', async (req) => {
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
  });
  await app.register(authRoutes, deps);
  // Sign-in and the session's own routes (/auth) stay outside the budget: a spent minute
  // never locks a person out of signing in or out.
  await app.register(async (budgeted) => {
    budgeted.addHook('onRequest', sessionWithinBudget(deps));
    await budgeted.register(apiKeyRoutes, deps);
    await budgeted.register(webhookRoutes, deps);
    await budgeted.register(competitorRoutes, deps);
  });
  // The dashboard's routes, and the key, webhook and competitor routes again for its pages, under the
  // CSRF guard (CONTRACT.md: /app/api has the same session and Origin rules plus a token).
  await app.register(
    async (dashboard) => {
      // Before the body is read: a request with no session or no token costs no parsing.
      dashboard.addHook('onRequest', dashboardGuard(deps.config));
      // After the guard: a request it refuses costs the account nothing.
      dashboard.addHook('onRequest', sessionWithinBudget(deps));
      // Answers hold signed addresses and account data: no cache keeps them, unless a route
      // says otherwise (a thumbnail's bytes).
      dashboard.addHook('onSend', async (_req, reply) => {
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      });
      await dashboard.register(appRoutes, deps);
      await dashboard.register(apiKeyRoutes, deps);
      await dashboard.register(webhookRoutes, deps);
      await dashboard.register(competitorRoutes, deps);
      await dashboard.register(libraryRoutes, deps);
      await dashboard.register(designRoutes, deps);
      await dashboard.register(drawingRoutes, deps);
      await dashboard.register(activityRoutes, deps);
    },
    { prefix: '/app/api' },
  );
};
