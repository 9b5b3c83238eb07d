// OAuth access tokens as principals (the bearer layer asks here for anything that is not an
// API key), and the dashboard's authorized clients: listed with scopes and last use, revoked
// (the grant and every token of it, effective on the next request).
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../kernel/errors.ts';
import { stampDue } from '../kernel/lastUse.ts';
import { type Authenticated, authenticated } from '../kernel/principal.ts';
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

/** An access token for `{publicBaseUrl}/mcp` as the principal it speaks for; else undefined. */
export async function authenticateAccessToken(
  db: Queryable,
  token: string,
  publicBaseUrl: string,
): Promise<Authenticated | undefined> {
  // Ours are 43 characters: anything much longer is not one, and costs no lookup.
  if (token.length > MAX_TOKEN_CHARS) return undefined;
  const r = await useAccessToken(db, token);
  // A token for any other audience is refused like an unknown one.
  if (!r || r.audience !== resourceOf(publicBaseUrl)) return undefined;
  if (stampDue(`grant:${r.grant_id}`, r.last_used_at?.getTime() ?? null))
    await stampGrantUse(db, r.grant_id);
  return authenticated(r, {
    scopes: scopesIn(r.scope),
    selectedBrandId: r.brand_id ?? r.selected_brand_id,
    credential: { kind: 'oauth', id: r.grant_id, clientId: r.client_id },
  });
}

export { AuthorizedClient } from './schema.ts';

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
