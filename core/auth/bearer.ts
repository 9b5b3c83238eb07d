// Resolves a bearer credential to a principal: an API key in one prepared, read-only
// statement (core/apikeys/db.ts; shared with other requests' lookups under load), anything
// else as an OAuth access token (core/oauth/); the last use of either is stamped apart
// (./lastUse.ts). The request budget is counted in
// memory (./budget.ts).
import {
  type KeyHolder,
  stampKeyUse,
  stampRememberedKeyUse,
  useApiKeyBatched,
  useApiKeyToRemember,
} from '../apikeys/db.ts';
import { apiKeyDigest, hashApiKey, hashFromDigest, looksLikeApiKey } from '../apikeys/keys.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import { stampDue, stampIsDue } from '../kernel/lastUse.ts';
import { type Authenticated, authenticated } from '../kernel/principal.ts';
import { authenticateAccessToken } from '../oauth/service.ts';
import type { KnownKeys } from './knownKeys.ts';

export type { Authenticated };

/** The caller a bearer token speaks for (an API key or an OAuth access token), if any. */
export const authenticateBearerToken = (
  db: Pool,
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
  db: Pool,
  token: string,
  known?: KnownKeys,
): Promise<Authenticated | undefined> {
  const r = known ? await lookUpToRemember(db, token, known) : await lookUp(db, token);
  return r && keyHolderAuthenticated(r);
}

/**
 * The holder of the key `token`, its last use stamped at most once a minute (./lastUse.ts).
 * Under load the lookup shares its statement with other requests' (useApiKeyBatched).
 */
async function lookUp(db: Pool, token: string) {
  const r = await useApiKeyBatched(db, hashApiKey(token));
  if (r && stampDue(stampId(r), r.last_used_ms)) await stampKeyUse(db, r.key_id);
  return r;
}

/**
 * lookUp, remembering the key in `known` (or forgetting it there when gone) with the row
 * version its stamp leaves: a stamp changes the key's row, and what was remembered before it
 * would fail its very next check.
 */
async function lookUpToRemember(db: Queryable, token: string, known: KnownKeys) {
  const digest = apiKeyDigest(token);
  const r = await useApiKeyToRemember(db, hashFromDigest(digest));
  const current =
    r && stampDue(stampId(r), r.last_used_ms) ? await stampRememberedKeyUse(db, r) : r;
  if (current) known.remember(digest, current);
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
