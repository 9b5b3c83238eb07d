// The worker's PublicMedia (publicMediaFor): addresses signed under PUBLIC_BASE_URL, the
// warning when that address is private, and a final failure without the media-URL secret.
import { describe, expect, it } from 'vitest';
import { publicMediaFor } from '../../core/assets/service.ts';

describe('publicMediaFor', () => {
  it('carries the warning for a private PUBLIC_BASE_URL and none for a public one', () => {
    const secret = 'x'.repeat(32);
    expect(
      publicMediaFor({ publicBaseUrl: 'http://localhost:3000', mediaUrlSecret: secret })
        .unreachable,
    ).toContain('PUBLIC_BASE_URL (http://localhost:3000)');
    expect(
      publicMediaFor({ publicBaseUrl: 'https://social.example.com', mediaUrlSecret: secret })
        .unreachable,
    ).toBeNull();
  });

  it('signs addresses under PUBLIC_BASE_URL', () => {
    const pm = publicMediaFor({
      publicBaseUrl: 'https://social.example.com/',
      mediaUrlSecret: 'x'.repeat(32),
    });
    expect(pm.urlOf({ id: '42' } as never)).toMatch(
      /^https:\/\/social\.example\.com\/media\/platform\/42\?expires=\d+&sig=[\w-]+$/,
    );
  });

  it('without the media-URL secret, refuses each address with a final failure saying what to set', () => {
    const pm = publicMediaFor({
      publicBaseUrl: 'https://social.example.com',
      mediaUrlSecret: undefined,
    });
    let failure: unknown;
    try {
      pm.urlOf({ id: '42' } as never);
    } catch (err) {
      failure = err;
    }
    expect(failure).toMatchObject({ retryable: false });
    expect((failure as Error).message).toContain('MEDIA_URL_SECRET');
    expect((failure as Error).message).toContain('cannot give Threads and Instagram an address');
  });
});
