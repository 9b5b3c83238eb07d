// The consent page's warning (core/oauth/rules.ts): only for a client that sends you to
// another machine, registered within the hour or describing itself on another host.
import { describe, expect, it } from 'vitest';
import {
  MAX_REGISTRATION_BYTES,
  REGISTRATIONS_PER_WINDOW,
  registrationLimit,
  WINDOW_MS,
} from '../../api/oauth/addressLimits.ts';
import { newSigningKey, parseSigningKeys } from '../../core/oauth/keys.ts';
import { clientWarning, scopesIn } from '../../core/oauth/rules.ts';

const now = 1_800_000_000;

describe('clientWarning', () => {
  it('warns about a client registered within the hour that sends you elsewhere', () => {
    const fresh = { clientId: 'abc', issuedAt: now - 120, redirectUri: 'https://app.example/cb' };
    expect(clientWarning(fresh, now)).toMatch(
      /registered itself 2 minute\(s\) ago .* app\.example/,
    );
    expect(clientWarning({ ...fresh, issuedAt: now - 7200 }, now)).toBeNull();
  });

  it('is not fooled by a host that merely starts like a loopback address', () => {
    for (const redirectUri of ['https://127.evil.example/cb', 'https://localhost.evil.example/cb'])
      expect(clientWarning({ clientId: 'abc', issuedAt: now, redirectUri }, now)).not.toBeNull();
    for (const redirectUri of [
      'http://127.0.0.1:8080/cb',
      'http://[::1]:3000/cb',
      'http://localhost/cb',
    ])
      expect(clientWarning({ clientId: 'abc', issuedAt: now, redirectUri }, now)).toBeNull();
  });

  it('warns about a metadata-document client sending you to another host than its own', () => {
    expect(
      clientWarning(
        { clientId: 'https://tool.example/client.json', redirectUri: 'https://other.example/cb' },
        now,
      ),
    ).toMatch(/describes itself at tool\.example .* other\.example/);
    expect(
      clientWarning(
        { clientId: 'https://tool.example/client.json', redirectUri: 'https://tool.example/cb' },
        now,
      ),
    ).toBeNull();
  });
});

describe('scopesIn', () => {
  it('keeps our scopes once each, in our order, and drops the rest', () => {
    expect(scopesIn('engage openid read read bogus')).toEqual(['read', 'engage']);
    expect(scopesIn(undefined)).toEqual([]);
  });
});

describe('parseSigningKeys', () => {
  it('takes the stored keys, and refuses a broken hand edit with what is wrong', () => {
    const key = newSigningKey();
    expect(parseSigningKeys(JSON.stringify([key]))).toEqual([key]);
    expect(parseSigningKeys(JSON.stringify(key))).toEqual([key]);
    expect(() => parseSigningKeys('[{')).toThrow(/not JSON/);
    expect(() => parseSigningKeys(JSON.stringify([{ kty: 'OKP', kid: 'k' }]))).toThrow(
      /kty, kid and d/,
    );
  });
});

describe('registrationLimit', () => {
  it('admits REGISTRATIONS_PER_WINDOW an address a window, bodies with a length within the cap', () => {
    let t = 0;
    const admit = registrationLimit(() => t);
    for (let i = 0; i < REGISTRATIONS_PER_WINDOW; i++) admit('203.0.113.9', 500);
    expect(() => admit('203.0.113.9', 500)).toThrow(/Too many client registrations/);
    // Another address is not held back; the first is, until its window ends.
    admit('198.51.100.1', 500);
    t += WINDOW_MS + 1;
    admit('203.0.113.9', 500);
    // An IPv6 client counts by its /64.
    for (let i = 0; i < REGISTRATIONS_PER_WINDOW; i++) admit(`2001:db8:1:2::${i + 1}`, 500);
    expect(() => admit('2001:db8:1:2:ffff::9', 500)).toThrow(/Too many/);
    admit('2001:db8:1:3::1', 500);
    expect(() => admit('198.51.100.2', undefined)).toThrow(/Content-Length/);
    expect(() => admit('198.51.100.2', MAX_REGISTRATION_BYTES + 1)).toThrow(/at most/);
  });
});
