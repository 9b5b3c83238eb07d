// Resolves a bearer credential to a principal: an API key in one prepared, read-only
// statement (core/apikeys/; shared with other requests' lookups under load), anything
// else as an OAuth access token (core/oauth/); the last use of either is stamped here,
// apart from its lookup (./lastUse.ts). The request budget is counted in memory
// (./budget.ts). A key remembered for the draft fast path is looked up by
// ./rememberedKeys.ts, with these rules.
import type { KeyHolder, RememberedKey } from '../apikeys/schema.ts';
import { hashApiKey, looksLikeApiKey, stampKeyUse, useApiKeyBatched } from '../apikeys/service.ts';
import type { Pool } from '../db/pool.ts';
import { budgetLimitOf, type Feature, type Plan, type Scope } from '../kernel/plans.ts';
import type { Credential, Principal } from '../kernel/principal.ts';
import { accessTokenHolder, stampGrantUse, type TokenHolder } from '../oauth/service.ts';
import { stampDue, stampIsDue } from './lastUse.ts';

/** A credential's holder as the bearer lookups read it (an API key's or a token's account). */
export type CredentialHolder = {
  account_id: string;
  email: string;
  plan: Plan;
  features: Feature[];
  budget_per_minute: number | null;
};

/** An authenticated caller: its principal and its account's requests a minute. */
export type Authenticated = {
  principal: Principal;
  /** The account's requests a minute (plan value or operator override). */
  budgetPerMinute: number;
};

/** The one way a looked-up credential becomes a principal (keys and OAuth tokens alike). */
export const authenticated = (
  r: CredentialHolder,
  grant: { scopes: Scope[]; selectedBrandId: string | null; credential: Credential },
): Authenticated => ({
  principal: {
    accountId: r.account_id,
    email: r.email,
    plan: r.plan,
    features: r.features,
    ...grant,
  },
  budgetPerMinute: budgetLimitOf(r),
});

/** The caller a bearer token speaks for (an API key or an OAuth access token), if any. */
export const authenticateBearerToken = (
  db: Pool,
  token: string,
  publicBaseUrl: string,
): Promise<Authenticated | undefined> =>
  looksLikeApiKey(token)
    ? authenticateApiKey(db, token)
    : authenticateAccessToken(db, token, publicBaseUrl);

/**
 * The holder of `token`, which has an API key's shape (looksLikeApiKey), its last use
 * stamped at most once a minute (./lastUse.ts). Under load the lookup shares its statement
 * with other requests' (useApiKeyBatched).
 */
async function authenticateApiKey(db: Pool, token: string): Promise<Authenticated | undefined> {
  const r = await useApiKeyBatched(db, hashApiKey(token));
  if (r && takeKeyStamp(r)) await stampKeyUse(db, r.key_id);
  return r && keyHolderAuthenticated(r);
}

/**
 * The holder of an OAuth access token for `{publicBaseUrl}/mcp`, its grant's last use stamped
 * at most once a minute (./lastUse.ts).
 */
async function authenticateAccessToken(
  db: Pool,
  token: string,
  publicBaseUrl: string,
): Promise<Authenticated | undefined> {
  const r = await accessTokenHolder(db, token, publicBaseUrl);
  if (!r) return undefined;
  if (stampDue(`grant:${r.grant_id}`, r.last_used_ms)) await stampGrantUse(db, r.grant_id);
  return tokenHolderAuthenticated(r);
}

const tokenHolderAuthenticated = (r: TokenHolder): Authenticated =>
  authenticated(r, {
    scopes: r.scopes,
    selectedBrandId: r.selected_brand_id,
    credential: { kind: 'oauth', id: r.grant_id, clientId: r.client_id },
  });

/**
 * The principal of a key's holder, as its lookup read it; `unconfirmed` when it is admitted on
 * what this process remembered of the key (Credential.unconfirmed).
 */
export const keyHolderAuthenticated = (r: KeyHolder, unconfirmed?: RememberedKey): Authenticated =>
  authenticated(r, {
    scopes: r.scopes,
    selectedBrandId: r.selected_brand_id,
    credential: { kind: 'api_key', id: r.key_id, unconfirmed },
  });

/** A key's name among the credentials ./lastUse.ts stamps. */
const stampId = (r: KeyHolder) => `key:${r.key_id}`;

/** Whether the key is due its last-use stamp (then a lookup stamps it). */
export const keyStampIsDue = (r: KeyHolder): boolean => stampIsDue(stampId(r), r.last_used_ms);

/** keyStampIsDue, and if so marks it stamped in this process: its caller then stamps it. */
export const takeKeyStamp = (r: KeyHolder): boolean => stampDue(stampId(r), r.last_used_ms);
