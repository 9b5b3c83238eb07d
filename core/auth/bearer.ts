// Resolves a bearer credential to a principal: an API key in one prepared, read-only
// statement (core/apikeys/db.ts), anything else as an OAuth access token (core/oauth/); the
// last use of either is stamped apart (./lastUse.ts). The request budget is counted in
// memory (./budget.ts).
import { type KeyHolder, stampKeyUse, useApiKey, useApiKeyToRemember } from '../apikeys/db.ts';
import { apiKeyDigest, hashApiKey, hashFromDigest, looksLikeApiKey } from '../apikeys/keys.ts';
import type { Queryable } from '../db/pool.ts';
import { authenticateAccessToken } from '../oauth/service.ts';
import type { KnownKeys } from './knownKeys.ts';
import { stampDue, stampIsDue } from './lastUse.ts';
import { type Authenticated, authenticated } from './principal.ts';

export type { Authenticated };

/** The caller a bearer token speaks for (an API key or an OAuth access token), if any. */
export const authenticateBearerToken = (
  db: Queryable,
  token: string,
  publicBaseUrl: string,
  known?: KnownKeys,
): Promise<Authenticated | undefined> =>
  looksLikeApiKey(token)
    ? authenticateApiKey(db, token, known)
    : authenticateAccessToken(db, token, publicBaseUrl);

/**
 * The holder of `token`, which has an API key's shape (looksLikeApiKey), looked up (and
 * remembered in `known`, or forgotten when gone).
 */
async function authenticateApiKey(
  db: Queryable,
  token: string,
  known?: KnownKeys,
): Promise<Authenticated | undefined> {
  const r = known
    ? await lookUpToRemember(db, token, known)
    : await useApiKey(db, hashApiKey(token));
  if (!r) return undefined;
  // The last use is stamped at most once a minute (./lastUse.ts).
  if (stampDue(stampId(r), r.last_used_ms)) await stampKeyUse(db, r.key_id);
  return keyHolderAuthenticated(r);
}

/** The holder of the key `token`, remembered in `known` (or forgotten there when gone). */
async function lookUpToRemember(db: Queryable, token: string, known: KnownKeys) {
  const digest = apiKeyDigest(token);
  const r = await useApiKeyToRemember(db, hashFromDigest(digest));
  if (r) known.remember(digest, r);
  else known.forget(digest);
  return r;
}

/** The principal of a key's holder, as its lookup read it. */
export const keyHolderAuthenticated = (r: KeyHolder): Authenticated =>
  authenticated(r, {
    scopes: r.scopes,
    selectedBrandId: r.selected_brand_id,
    credential: { kind: 'api_key', id: r.key_id },
  });

/** A key's name among the credentials ./lastUse.ts stamps. */
const stampId = (r: KeyHolder) => `key:${r.key_id}`;

/** Whether the key is due its last-use stamp (then a lookup, authenticateApiKey, stamps it). */
export const keyStampIsDue = (r: KeyHolder): boolean => stampIsDue(stampId(r), r.last_used_ms);
