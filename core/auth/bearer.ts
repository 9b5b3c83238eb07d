// Resolves a bearer credential to a principal: an API key in one prepared, read-only
// statement (core/apikeys/db.ts), anything else as an OAuth access token (core/oauth/); the
// last use of either is stamped apart (./lastUse.ts). The request budget is counted in
// memory (./budget.ts).
import { type KeyHolder, stampKeyUse, useApiKey } from '../apikeys/db.ts';
import { hashApiKey, looksLikeApiKey } from '../apikeys/keys.ts';
import type { Queryable } from '../db/pool.ts';
import { authenticateAccessToken } from '../oauth/service.ts';
import type { KnownKeys } from './knownKeys.ts';
import { stampDue } from './lastUse.ts';
import { type Authenticated, authenticated } from './principal.ts';

export type { Authenticated };

/** The caller a bearer token speaks for (an API key or an OAuth access token), if any. */
export const authenticateBearerToken = async (
  db: Queryable,
  token: string,
  publicBaseUrl: string,
  known?: KnownKeys,
): Promise<Authenticated | undefined> =>
  looksLikeApiKey(token)
    ? await authenticateApiKey(db, token, known)
    : await authenticateAccessToken(db, token, publicBaseUrl);

/** An API key's holder, looked up (and remembered in `known`, or forgotten when gone). */
export async function authenticateApiKey(
  db: Queryable,
  token: string,
  known?: KnownKeys,
): Promise<Authenticated | undefined> {
  if (!looksLikeApiKey(token)) return undefined;
  const hash = hashApiKey(token);
  const r = await useApiKey(db, hash);
  if (!r) {
    known?.forget(hash);
    return undefined;
  }
  known?.remember(hash, r);
  await stampKeyUseWhenDue(db, r);
  return keyHolderAuthenticated(r);
}

/** The principal of a key's holder, as its lookup read it. */
export const keyHolderAuthenticated = (r: KeyHolder): Authenticated =>
  authenticated(r, {
    scopes: r.scopes,
    selectedBrandId: r.selected_brand_id,
    credential: { kind: 'api_key', id: r.key_id },
  });

/** Stamps the key's last use, at most once a minute (./lastUse.ts). */
export async function stampKeyUseWhenDue(db: Queryable, r: KeyHolder): Promise<void> {
  if (stampDue(`key:${r.key_id}`, r.last_used_at)) await stampKeyUse(db, r.key_id);
}
