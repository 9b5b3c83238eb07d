// The API keys this process looked up lately, by hash, as they were read. POST /v1/posts
// decides on the remembered key (plan, budget, scope) before any statement runs, then acts
// in one statement that holds only while the key still reads the same (core/apikeys/db.ts
// keyStillHolds); when it does not, the request falls back to a fresh lookup. So a
// remembered key saves a round trip and never grants anything: a deleted or changed key
// fails its very next request, in every process.
import type { KeyHolder } from '../apikeys/db.ts';
import { hashFromDigest } from '../apikeys/keys.ts';

/** A remembered key to check in the statement that acts as it: its stored hash and holder. */
export type KeyCheck = { hash: Buffer; holder: KeyHolder };

/** Thrown where a statement found the key no longer as remembered (or could not check it). */
export class KeyChanged extends Error {
  constructor() {
    super('the API key changed since it was remembered; look it up afresh');
  }
}

/** Keys by their hex SHA-256 (core/apikeys/keys.ts apiKeyDigest). */
export type KnownKeys = {
  recall(digest: string): KeyCheck | undefined;
  remember(digest: string, holder: KeyHolder): void;
  forget(digest: string): void;
};

/**
 * At most `max` keys, the one remembered first dropped first. A key remembered again keeps its
 * place: moving it to the end (a delete and a set) on every lookup made the Map compact itself
 * into a new table every few requests, and V8 links an obsolete table to its successor, which
 * kept every table and entry since alive through young-generation GCs once one table was old
 * (see api/inFlight.ts).
 */
export function createKnownKeys(max = 10_000): KnownKeys {
  const keys = new Map<string, KeyCheck>();
  return {
    recall: (digest) => keys.get(digest),
    remember(digest, holder) {
      const known = keys.get(digest);
      keys.set(digest, { hash: known?.hash ?? hashFromDigest(digest), holder });
      if (!known && keys.size > max) keys.delete(keys.keys().next().value!);
    },
    forget: (digest) => void keys.delete(digest),
  };
}
