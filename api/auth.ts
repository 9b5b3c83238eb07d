// The bearer-credential layer shared by REST, GraphQL and MCP: resolve the credential to a
// principal, then check plan, request budget and the route's declared requirement.
// A route declares what it needs in `config.requires`; handlers never check access themselves.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  assertApiPlan,
  assertRequirement,
  assertWithinBudget,
  budgetHeaders,
} from '../core/auth/access.ts';
import { authenticateBearerToken } from '../core/auth/bearer.ts';
import type { BudgetCounter } from '../core/auth/budget.ts';
import type { Budget, Principal, Requirement } from '../core/auth/principal.ts';
import type { Pool } from '../core/db/pool.ts';
import { unauthenticated } from '../core/errors.ts';
import { resourceMetadataOf } from '../core/oauth/rules.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /** The account's request window after counting this request. */
    budget?: Budget;
  }
  interface FastifyContextConfig {
    /** Scope and feature the operation needs beyond a valid credential. */
    requires?: Requirement;
  }
}

/** The token of an `Authorization: Bearer <token>` header, if any. */
export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * What the bearer layer needs: the pool, this process's request-budget counter, and the
 * public base URL (OAuth tokens are for its /mcp; a refusal points at its resource metadata).
 */
export type AuthContext = { pool: Pool; budget: BudgetCounter; publicBaseUrl: string };

/** The challenge a 401 carries, so an OAuth client discovers the sign-in from one failed call. */
export const bearerChallenge = (publicBaseUrl: string) =>
  `Bearer resource_metadata="${resourceMetadataOf(publicBaseUrl)}"`;

/**
 * Authenticates a bearer credential and applies the interface-wide rules (plan, budget).
 * Used by every bearer interface; the caller then checks the operation's requirement.
 */
export async function authenticateBearer(
  { pool, budget, publicBaseUrl }: AuthContext,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<Principal> {
  const token = bearerToken(req);
  if (!token) {
    reply.header('www-authenticate', bearerChallenge(publicBaseUrl));
    throw unauthenticated('Send Authorization: Bearer <API key or OAuth access token>.');
  }
  const auth = await authenticateBearerToken(pool, token, publicBaseUrl);
  if (!auth) {
    reply.header('www-authenticate', `${bearerChallenge(publicBaseUrl)}, error="invalid_token"`);
    throw unauthenticated('The bearer credential is unknown, expired or was revoked.');
  }
  assertApiPlan(auth.principal);
  const window = await budget.count(auth.principal.accountId, auth.budgetPerMinute);
  reply.headers(budgetHeaders(window));
  assertWithinBudget(window);
  req.principal = auth.principal;
  req.budget = window;
  return auth.principal;
}

/** onRequest hook for a route folder whose routes all take bearer credentials. */
export function bearerAuthHook(ctx: AuthContext) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const principal = await authenticateBearer(ctx, req, reply);
    assertRequirement(principal, req.routeOptions.config.requires);
  };
}

/** The principal set by an auth hook; a route without one is a programming error. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal)
    throw new Error(`no principal on ${req.method} ${req.url}: auth hook missing`);
  return req.principal;
}
