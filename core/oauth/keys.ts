// The OAuth server's signing keys: private JWKs, the first signs and the others (older ones,
// after a rotation) still verify. DATA_DIR's secrets.json keeps one from the first start;
// access tokens are opaque, so the key signs only what the provider itself signs.
import { z } from 'zod';

export type SigningKey = Record<string, string>;

/** A new signing key: made where every secret is (core/secrets.ts), which imports no concept. */
export { newSigningKey } from '../secrets.ts';

const PrivateJwk = z
  .object({ kty: z.string(), kid: z.string().min(1), d: z.string().min(1) })
  .catchall(z.string());
const StoredKeys = z.union([z.array(PrivateJwk).min(1), PrivateJwk.transform((k) => [k])]);

/**
 * The keys kept as a JSON array (newest first) or a single key; a hand edit that broke them
 * stops start with what is wrong, not a crash deep in the provider.
 */
export function parseSigningKeys(stored: string): SigningKey[] {
  let json: unknown;
  try {
    json = JSON.parse(stored);
  } catch {
    throw new Error('secrets.json: oauthSigningKey is not JSON (an array of private JWKs)');
  }
  const keys = StoredKeys.safeParse(json);
  if (!keys.success)
    throw new Error(
      `secrets.json: oauthSigningKey must be private JWKs, each with kty, kid and d: ${keys.error.issues[0]?.message}`,
    );
  return keys.data;
}
