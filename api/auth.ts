// The bearer-credential layer shared by REST, GraphQL and MCP: resolve the credential to a
// principal, then check plan, request budget and the route's declared requirement.
// A route declares what it needs in `config.requires`; handlers never check access themselves.
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { KeyChanged } from '../core/apikeys/schema.ts';
import {
  type Authenticated,
  assertApiPlan,
  assertRequirement,
  assertWithinBudget,
  authenticateBearerToken,
  authenticateRemembering,
  type Budget,
  type BudgetCounter,
  budgetHeaders,
  type KnownKeys,
  recallKey,
} from '../core/auth/service.ts';
import type { Pool } from '../core/db/pool.ts';
import { unauthenticated } from '../core/kernel/errors.ts';
import { type Principal, type Requirement, unconfirmedKeyOf } from '../core/kernel/principal.ts';
import { resourceMetadataOf } from '../core/oauth/service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /** The account's request window after counting this request. */
    budget?: Budget;
  }
  interface FastifyContextConfig {
    /** Scope and feature the operation needs beyond a valid credential. */
    requires?: Requirement;
    /**
     * The handler confirms a remembered API key in its own statement (an unconfirmed
     * credential, core/auth/rememberedKeys.ts), saving the lookup's round trip: it runs the
     * operation through withRememberedKey, and any other outcome calls confirmBearer first.
     */
    foldsKeyCheck?: boolean;
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
export type AuthContext = {
  pool: Pool;
  budget: BudgetCounter;
  publicBaseUrl: string;
  /** API keys this process looked up on routes that fold the key check into their statement. */
  known: KnownKeys;
};

/** The challenge a 401 carries, so an OAuth client discovers the sign-in from one failed call. */
export const bearerChallenge = (publicBaseUrl: string) =>
  `Bearer resource_metadata="${resourceMetadataOf(publicBaseUrl)}"`;

/**
 * Authenticates a bearer credential and applies the interface-wide rules (plan, budget).
 * Used by every bearer interface; the caller then checks the operation's requirement. An API
 * key is remembered (`remember`) only for a route that folds the key check into its statement.
 */
export async function authenticateBearer(
  { pool, budget, publicBaseUrl, known }: AuthContext,
  req: FastifyRequest,
  reply: FastifyReply,
  remember = false,
): Promise<Principal> {
  const token = bearerToken(req);
  if (!token) {
    reply.header('www-authenticate', bearerChallenge(publicBaseUrl));
    throw unauthenticated('Send Authorization: Bearer <API key or OAuth access token>.');
  }
  const auth = remember
    ? await authenticateRemembering(pool, token, publicBaseUrl, known)
    : await authenticateBearerToken(pool, token, publicBaseUrl);
  if (!auth) {
    reply.header('www-authenticate', `${bearerChallenge(publicBaseUrl)}, error="invalid_token"`);
    throw unauthenticated('The bearer credential is unknown, expired or was revoked.');
  }
  assertApiPlan(auth.principal);
  await chargeBudget(budget, auth, req, reply);
  req.principal = auth.principal;
  return auth.principal;
}

/**
 * Counts the request against its account's budget, shared by every interface (REST, GraphQL,
 * MCP, the dashboard's session routes): the RateLimit headers on the answer, a 429 past it.
 */
export async function chargeBudget(
  budget: BudgetCounter,
  { principal, budgetPerMinute }: Authenticated,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const { accountId } = principal;
  const window =
    budget.countNow(accountId, budgetPerMinute) ?? (await budget.count(accountId, budgetPerMinute));
  reply.headers(budgetHeaders(window));
  assertWithinBudget(window);
  req.budget = window;
}

/** onRequest hook for a route folder whose routes all take bearer credentials. */
export function bearerAuthHook(ctx: AuthContext) {
  // Callback style: a remembered key is admitted without a promise (admitRememberedKey).
  return (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    // Read once: every read of req.routeOptions builds a new object of a dozen fields.
    const { config } = req.routeOptions;
    if (config.foldsKeyCheck && admitRememberedKey(ctx, req, reply, config)) return done();
    admitByLookup(ctx, req, reply, config).then(() => done(), done);
  };
}

/** The exact admission: the credential looked up, then every rule and the route's requirement. */
async function admitByLookup(
  ctx: AuthContext,
  req: FastifyRequest,
  reply: FastifyReply,
  config: FastifyContextConfig,
) {
  const principal = await authenticateBearer(ctx, req, reply, config.foldsKeyCheck);
  assertRequirement(principal, config.requires);
}

const BUDGET_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/**
 * For a route that folds the key check into its statement: admits a key this process looked
 * up before on what it read then (plan, budget, requirement), its credential unconfirmed for
 * the handler's statement to confirm. False, with nothing counted, when the key is not
 * remembered, any rule would refuse it, or admitting it needs Postgres (the account's budget
 * window is not known here yet, or the key is due its last-use stamp): the exact path then
 * looks it up and answers. Synchronous, so the common case costs no promise.
 */
function admitRememberedKey(
  { budget, known }: AuthContext,
  req: FastifyRequest,
  reply: FastifyReply,
  config: FastifyContextConfig,
): boolean {
  const token = bearerToken(req);
  const recalled = token && recallKey(known, token);
  if (!recalled) return false;
  const { principal, budgetPerMinute } = recalled;
  try {
    assertApiPlan(principal);
    assertRequirement(principal, config.requires);
  } catch {
    return false;
  }
  const window = budget.countNow(principal.accountId, budgetPerMinute);
  if (!window) return false;
  if (window.used > window.limit) {
    budget.refund(principal.accountId, 1, window);
    return false;
  }
  reply.headers(budgetHeaders(window));
  req.principal = principal;
  req.budget = window;
  return true;
}

/** Whether the request was admitted on a remembered key no statement has confirmed yet. */
export const keyUnconfirmed = (req: FastifyRequest): boolean =>
  req.principal !== undefined && unconfirmedKeyOf(req.principal) !== undefined;

/** After the handler's own statement confirmed the remembered key: the principal as looked up. */
function keyConfirmed(req: FastifyRequest): void {
  const principal = principalOf(req);
  const { credential } = principal;
  if (credential.kind !== 'api_key' || !credential.unconfirmed) return;
  req.principal = { ...principal, credential: { ...credential, unconfirmed: undefined } };
}

/**
 * Replaces a remembered key's admission (admitRememberedKey) with the exact one: a fresh
 * lookup and every rule, answering 401/403/429 as any route would. Called before anything
 * but the handler's own confirming statement answers (an error, another path).
 */
export async function confirmBearer(
  ctx: AuthContext,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<Principal> {
  const principal = req.principal;
  if (!principal || !unconfirmedKeyOf(principal)) return principalOf(req);
  // Take back the remembered admission: the exact path counts the request again.
  if (req.budget) ctx.budget.refund(principal.accountId, 1, req.budget);
  req.principal = undefined;
  req.budget = undefined;
  for (const header of BUDGET_HEADERS) reply.removeHeader(header);
  await admitByLookup(ctx, req, reply, req.routeOptions.config);
  return principalOf(req);
}

/**
 * Runs an operation whose statement confirms a remembered key (a route that folds the key
 * check): on the remembered admission first, when the request was admitted on one; if the key
 * changed since (KeyChanged, thrown before anything is written), or the request was admitted
 * by a lookup, on the freshly looked-up caller (confirmBearer).
 */
export async function withRememberedKey<T>(
  ctx: AuthContext,
  req: FastifyRequest,
  reply: FastifyReply,
  run: (caller: Principal) => Promise<T>,
): Promise<T> {
  if (keyUnconfirmed(req)) {
    try {
      const done = await run(principalOf(req));
      keyConfirmed(req); // by run's statement
      return done;
    } catch (err) {
      if (!(err instanceof KeyChanged)) throw err;
    }
  }
  return run(await confirmBearer(ctx, req, reply));
}

/** The principal set by an auth hook; a route without one is a programming error. */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal)
    throw new Error(`no principal on ${req.method} ${req.url}: auth hook missing`);
  return req.principal;
}
