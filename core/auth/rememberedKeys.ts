// The remembered keys of the draft fast path: API keys this process looked up lately, by
// hash, so that POST /v1/posts admits a key without a lookup and creates a plain draft in one
// statement that confirms the key too (core/posts/draftAsKey.ts). The bearer layer
// (api/auth.ts) recalls a key here or looks it up to remember it; a statement that finds the
// key changed throws KeyChanged, and the caller looks the key up and calls again. A remembered
// key saves a round trip and never grants anything: a deleted or changed key fails its very
// next request, in every process.

import type { RememberedKey } from '../apikeys/schema.ts';
import {
  apiKeyDigest,
  hashFromDigest,
  looksLikeApiKey,
  stampRememberedKeyUse,
  useApiKeyToRemember,
} from '../apikeys/service.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import {
  type Authenticated,
  authenticateBearerToken,
  keyHolderAuthenticated,
  keyStampIsDue,
  takeKeyStamp,
} from './bearer.ts';

/** Keys by their hex SHA-256 (core/apikeys/keys.ts apiKeyDigest). */
export type KnownKeys = {
  recall(digest: string): RememberedKey | undefined;
  remember(digest: string, holder: RememberedKey): void;
  forget(digest: string): void;
};

/**
 * At most `max` keys, in two generations of max/2: when the current one fills, it becomes the
 * previous one and the oldest generation is dropped whole, so a key not remembered again
 * within two generations goes. Nothing is deleted one by one: a Map whose entries keep coming
 * and going compacts itself into new tables, and V8 links each obsolete table to its
 * successor, which kept every table and entry since alive through young-generation GCs once
 * one table was old (see api/inFlight.ts). A key looked up again is set in place.
 */
export function createKnownKeys(max = 10_000): KnownKeys {
  let current = new Map<string, RememberedKey>();
  let previous = new Map<string, RememberedKey>();
  const recall = (digest: string) => current.get(digest) ?? previous.get(digest);
  return {
    recall,
    remember(digest, holder) {
      current.set(digest, holder);
      if (current.size >= max / 2) {
        previous = current;
        current = new Map();
      }
    },
    forget(digest) {
      current.delete(digest);
      previous.delete(digest);
    },
  };
}

/**
 * The caller `token` speaks for when its key is remembered and not due its last-use stamp (a
 * stamp needs Postgres), its credential unconfirmed; undefined otherwise. Synchronous, so the
 * common case costs no promise.
 */
export function recallKey(known: KnownKeys, token: string): Authenticated | undefined {
  if (!looksLikeApiKey(token)) return undefined;
  const holder = known.recall(apiKeyDigest(token));
  if (!holder || keyStampIsDue(holder)) return undefined;
  return keyHolderAuthenticated(holder, holder);
}

/**
 * authenticateBearerToken for a route whose statement confirms a remembered key: an API key is
 * looked up, its last use stamped when due, and remembered (or forgotten when gone).
 */
export const authenticateRemembering = (
  db: Pool,
  token: string,
  publicBaseUrl: string,
  known: KnownKeys,
): Promise<Authenticated | undefined> =>
  looksLikeApiKey(token)
    ? lookUpToRemember(db, token, known)
    : authenticateBearerToken(db, token, publicBaseUrl);

/**
 * Remembers the key with the row version its stamp leaves: a stamp changes the key's row, and
 * what was remembered before it would fail its very next check.
 */
async function lookUpToRemember(db: Queryable, token: string, known: KnownKeys) {
  const digest = apiKeyDigest(token);
  const r = await useApiKeyToRemember(db, hashFromDigest(digest));
  const current = r && takeKeyStamp(r) ? await stampRememberedKeyUse(db, r) : r;
  if (current) known.remember(digest, current);
  else known.forget(digest);
  return r && keyHolderAuthenticated(r);
}
