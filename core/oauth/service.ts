// OAuth access tokens and their holders (the bearer layer asks here for anything that is not
// an API key, and makes the principal and stamps the grant's last use itself), and the
// dashboard's authorized clients: listed with scopes and last use, revoked (the grant and
// every token of it, effective on the next request).
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../kernel/errors.ts';
import type { Feature, Plan, Scope } from '../kernel/plans.ts';
import {
  deleteExpiredPayloads,
  destroyGrant,
  findGrant,
  grantsOf,
  insertGrant,
  stampGrantUse,
  useAccessToken,
} from './db.ts';
import { resourceOf, scopesIn } from './rules.ts';
import type { AuthorizedClient } from './schema.ts';

const MAX_TOKEN_CHARS = 200;

/** An access token's grant and its account, as the lookup behind every OAuth request reads them. */
export type TokenHolder = {
  grant_id: string;
  client_id: string;
  /** When the grant was last stamped, in ms since the epoch. */
  last_used_ms: number | null;
  scopes: Scope[];
  /** The grant's brand, else the account's selected one. */
  selected_brand_id: string | null;
  account_id: string;
  email: string;
  plan: Plan;
  features: Feature[];
  budget_per_minute: number | null;
};

/**
 * The holder of an access token for `{publicBaseUrl}/mcp`; else undefined. Read-only: the
 * grant's last use is stamped apart (stampGrantUse), when the bearer layer finds it due.
 */
export async function accessTokenHolder(
  db: Queryable,
  token: string,
  publicBaseUrl: string,
): Promise<TokenHolder | undefined> {
  // Ours are 43 characters: anything much longer is not one, and costs no lookup.
  if (token.length > MAX_TOKEN_CHARS) return undefined;
  const r = await useAccessToken(db, token);
  // A token for any other audience is refused like an unknown one.
  if (!r || r.audience !== resourceOf(publicBaseUrl)) return undefined;
  return {
    grant_id: r.grant_id,
    client_id: r.client_id,
    last_used_ms: r.last_used_at?.getTime() ?? null,
    scopes: scopesIn(r.scope),
    selected_brand_id: r.brand_id ?? r.selected_brand_id,
    account_id: r.account_id,
    email: r.email,
    plan: r.plan,
    features: r.features,
    budget_per_minute: r.budget_per_minute,
  };
}

export { AuthorizedClient } from './schema.ts';
/** Stamps a grant's last use, unless it was stamped within the minute (by any process). */
export { stampGrantUse };

export async function listAuthorizedClients(
  db: Queryable,
  accountId: string,
): Promise<AuthorizedClient[]> {
  return (await grantsOf(db, accountId)).map((g) => ({
    ...g,
    created_at: g.created_at.toISOString(),
    last_used_at: g.last_used_at?.toISOString() ?? null,
  }));
}

export async function revokeAuthorizedClient(
  db: Queryable,
  accountId: string,
  grantId: string,
): Promise<void> {
  if (!(await findGrant(db, accountId, grantId))) throw notFound('Authorized client');
  await destroyGrant(db, grantId);
}

/** Codes, tokens, interactions and sessions past their expiry, deleted (hourly cleanup). */
export const deleteExpiredOAuthState = (db: Queryable) => deleteExpiredPayloads(db);

/** What the consent page allowed: the grant's brand, scopes and client, for the Apps page. */
export const recordGrant = insertGrant;

export { postgresAdapter } from './adapter.ts';
export type { SigningKey } from './keys.ts';
export { newSigningKey, parseSigningKeys } from './keys.ts';
export {
  ConsentDecision,
  ConsentView,
  clientWarning,
  resourceMetadataOf,
  resourceOf,
  SCOPE_MEANINGS,
  scopesIn,
} from './rules.ts';
