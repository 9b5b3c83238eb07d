// Signed, expiring addresses for an asset's bytes: whoever holds one may fetch the bytes until
// it expires, without a credential (for an <img> tag, a preview, a platform that pulls media).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a signed address stays valid. */
export const SIGNED_URL_TTL_S = 3600;

/**
 * How far another API process's clock may run ahead of ours. An `expires` beyond our TTL plus
 * this was not made by us: only a forger would sign an address for ten years.
 */
export const CLOCK_SKEW_S = 60;

/**
 * The key that signs asset addresses, derived from the media-URL secret (MEDIA_URL_SECRET or
 * DATA_DIR/secrets.json), which serves no other purpose.
 */
export const assetUrlKey = (mediaUrlSecret: string): Buffer =>
  createHmac('sha256', mediaUrlSecret).update('asset-urls/v1').digest();

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
  const nowS = now / 1000;
  if (!Number.isInteger(expires) || expires < nowS) return false;
  if (expires > nowS + SIGNED_URL_TTL_S + CLOCK_SKEW_S) return false;
  const expected = Buffer.from(signature(key, assetId, expires));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
