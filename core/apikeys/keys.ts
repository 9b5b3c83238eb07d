// API key material: `sps_` + 40 base62 characters (CONTRACT.md asks for at least 32),
// stored only as a SHA-256 hash. The hash is enough: the key is 238 random bits, so no
// slow hash is needed to resist guessing, and a fast one keeps every request cheap.
import { hash, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^sps_[0-9A-Za-z]{32,128}$/;

export function generateApiKey(): string {
  let body = '';
  for (let i = 0; i < 40; i++) body += BASE62[randomInt(62)];
  return `sps_${body}`;
}

/** True when the token has the shape of one of our keys (cheap pre-check before SQL). */
export const looksLikeApiKey = (token: string): boolean => KEY_PATTERN.test(token);

/**
 * The key's SHA-256 in hex: what this process remembers a key by (core/auth/rememberedKeys.ts).
 * One-shot, no Hash object; a hex digest is several times cheaper than a 'buffer' one.
 */
export const apiKeyDigest = (key: string): string => hash('sha256', key);

/** A key's SHA-256 as stored (api_keys.key_hash), from its digest. */
export const hashFromDigest = (digest: string): Buffer => Buffer.from(digest, 'hex');

/** The key's SHA-256 as stored (api_keys.key_hash). */
export const hashApiKey = (key: string): Buffer => hashFromDigest(apiKeyDigest(key));
