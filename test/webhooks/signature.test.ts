// The receiver kit's verifier, against an independent HMAC computed here.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from '../../core/webhooks/signature.ts';

const secret = 'whsec_test-secret';
const body = '{"event":"post.published","post":{"id":"1","body_preview":"héllo 👋"}}';
const independent = (s: string, b: string | Buffer) =>
  `sha256=${createHmac('sha256', Buffer.from(s, 'utf8')).update(b).digest('hex')}`;

describe('webhook signatures', () => {
  it('signs the raw bytes with the secret as UTF-8, as a plain HMAC check expects', () => {
    expect(signBody(secret, body)).toBe(independent(secret, body));
    expect(signBody(secret, Buffer.from(body))).toBe(independent(secret, body));
  });

  it('verifies the exact bytes and nothing else', () => {
    const header = independent(secret, body);
    expect(verifySignature(body, header, secret)).toBe(true);
    expect(verifySignature(Buffer.from(body), header, secret)).toBe(true);
    // Reserialized JSON is different bytes.
    expect(verifySignature(JSON.stringify(JSON.parse(body), null, 1), header, secret)).toBe(false);
    expect(verifySignature(`${body} `, header, secret)).toBe(false);
    expect(verifySignature(body, header, 'whsec_other')).toBe(false);
    expect(verifySignature(body, undefined, secret)).toBe(false);
    expect(verifySignature(body, 'sha256=abc', secret)).toBe(false);
    expect(verifySignature(body, header.toUpperCase(), secret)).toBe(false);
  });
});
