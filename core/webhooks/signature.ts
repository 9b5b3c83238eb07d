// Webhook signatures (SPEC.md "Events", rule 3): `X-Service-Signature: sha256=<hex>`, the
// HMAC-SHA256 of the raw body bytes keyed with the secret's UTF-8 bytes. `verifySignature`
// is the receiver's half: use it on the body exactly as received, before parsing it.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';

export const signBody = (secret: string, body: string | Buffer): string =>
  `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;

/** True when `header` is the signature of `rawBody` under `secret`; constant-time. */
export function verifySignature(
  rawBody: string | Buffer,
  header: string | undefined | null,
  secret: string,
): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, rawBody), 'utf8');
  const given = Buffer.from(header.trim(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
