// The API keys this process looked up lately, by hash, as they were read. POST /v1/posts
// decides on the remembered key (plan, budget, scope) before any statement runs, then acts
// in one statement that holds only while the key still reads the same (core/apikeys/db.ts
// keyStillHolds); when it does not, the request falls back to a fresh lookup. So a
// remembered key saves a round trip and never grants anything: a deleted or changed key
// fails its very next request, in every process.
import type { KeyHolder } from '../apikeys/db.ts';

/** A remembered key to check in the statement that acts as it. */
export type KeyCheck = { hash: Buffer; holder: KeyHolder };

/** Thrown where a statement found the key no longer as remembered (or could not check it). */
export class KeyChanged extends Error {
  constructor() {
    super('the API key changed since it was remembered; look it up afresh');
  }
}

export type KnownKeys = {
  recall(hash: Buffer): KeyHolder | undefined;
  remember(hash: Buffer, holder: KeyHolder): void;
  forget(hash: Buffer): void;
};

/** At most `max` keys, the least recently remembered dropped first. */
export function createKnownKeys(max = 10_000): KnownKeys {
  const keys = new Map<string, KeyHolder>();
  const id = (hash: Buffer) => hash.toString('base64');
  return {
    recall: (hash) => keys.get(id(hash)),
    remember(hash, holder) {
      const k = id(hash);
      keys.delete(k);
      keys.set(k, holder);
      if (keys.size > max) keys.delete(keys.keys().next().value!);
    },
    forget: (hash) => void keys.delete(id(hash)),
  };
}
