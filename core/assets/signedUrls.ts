// Signed, expiring addresses for an asset's bytes: whoever holds one may fetch the bytes until
// it expires, without a credential (for an <img> tag, a preview, a platform that pulls media).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a signed address stays valid. */
export const SIGNED_URL_TTL_S = 3600;

/** The key that signs asset addresses, derived from the server's secret. */
export const assetUrlKey = (serverSecret: string): Buffer =>
  createHmac('sha256', serverSecret).update('asset-urls/v1').digest();

const signature = (key: Buffer, assetId: string, expires: number) =>
  createHmac('sha256', key).update(`${assetId}.${expires}`).digest('base64url');

export function signAssetUrl(base: string, key: Buffer, assetId: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + SIGNED_URL_TTL_S;
  return `${base}/media/${assetId}?expires=${expires}&sig=${signature(key, assetId, expires)}`;
}

export function verifyAssetSignature(
  key: Buffer,
  assetId: string,
  expires: number,
  sig: string,
  now = Date.now(),
): boolean {
  if (!Number.isInteger(expires) || expires < now / 1000) return false;
  const expected = Buffer.from(signature(key, assetId, expires));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
