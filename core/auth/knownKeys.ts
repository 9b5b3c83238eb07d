// The API keys this process looked up lately, by hash, as they were read. POST /v1/posts
// decides on the remembered key (plan, budget, scope) before any statement runs, then acts
// in one statement that holds only while the key still reads the same (core/apikeys/db.ts
// keyStillHolds); when it does not, the request falls back to a fresh lookup. So a
// remembered key saves a round trip and never grants anything: a deleted or changed key
// fails its very next request, in every process.
import type { RememberedKey } from '../apikeys/db.ts';

/** Thrown where a statement found the key no longer as remembered (or could not check it). */
export class KeyChanged extends Error {
  constructor() {
    super('the API key changed since it was remembered; look it up afresh');
  }
}

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
