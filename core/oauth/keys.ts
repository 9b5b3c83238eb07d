// The OAuth server's signing keys: private JWKs, the first signs and the others (older ones,
// after a rotation) still verify. DATA_DIR's secrets.json keeps one from the first start;
// access tokens are opaque, so the key signs only what the provider itself signs.
import { generateKeyPairSync, randomUUID } from 'node:crypto';

export type SigningKey = Record<string, string>;

/** A new Ed25519 signing key as a private JWK. */
export function newSigningKey(): SigningKey {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as SigningKey;
  return { ...jwk, kid: randomUUID(), alg: 'EdDSA', use: 'sig' };
}

/** The keys kept as a JSON array (newest first) or a single key. */
export function parseSigningKeys(stored: string): SigningKey[] {
  const parsed = JSON.parse(stored) as SigningKey | SigningKey[];
  return Array.isArray(parsed) ? parsed : [parsed];
}
