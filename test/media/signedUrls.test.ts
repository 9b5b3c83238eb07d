// Signed addresses (core/assets/signedUrls.ts): a signature opens only the subject it was
// made for (an asset's never opens a drawing export of the same number, nor the reverse),
// and an export's address expires with its file.
import { describe, expect, it } from 'vitest';
import {
  drawingExportSubject,
  SIGNED_URL_TTL_S,
  signAssetUrl,
  signDrawingExportUrl,
  verifySignedSubject,
} from '../../core/assets/signedUrls.ts';

const key = Buffer.alloc(32, 7);
const base = 'http://127.0.0.1:1';
const parts = (url: string) => {
  const u = new URL(url);
  return { expires: Number(u.searchParams.get('expires')), sig: u.searchParams.get('sig')! };
};

describe('signed addresses', () => {
  it('open only the subject they were signed for', () => {
    const asset = parts(signAssetUrl(base, key, '42'));
    const later = new Date(Date.now() + 3_600_000);
    const exported = parts(signDrawingExportUrl(base, key, '42', later).url);
    expect(verifySignedSubject(key, '42', asset.expires, asset.sig)).toBe(true);
    expect(verifySignedSubject(key, drawingExportSubject('42'), asset.expires, asset.sig)).toBe(
      false,
    );
    expect(
      verifySignedSubject(key, drawingExportSubject('42'), exported.expires, exported.sig),
    ).toBe(true);
    expect(verifySignedSubject(key, '42', exported.expires, exported.sig)).toBe(false);
  });

  it("expire with an export's file when it goes before the hour is up", () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    const deleted = new Date(now + 60_000);
    const soon = signDrawingExportUrl(base, key, '7', deleted, now);
    expect(soon.expires.toISOString()).toBe('2026-11-25T12:01:00.000Z');
    expect(parts(soon.url).expires).toBe(now / 1000 + 60);
    const far = signDrawingExportUrl(base, key, '7', new Date(now + 10 * 3_600_000), now);
    expect(far.expires.getTime()).toBe(now + SIGNED_URL_TTL_S * 1000);
  });
});
