import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../core/config.ts';

describe('configuration', () => {
  it('defaults match CONTRACT.md', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://localhost:3000',
    });
    expect(c.storage).toBe('fs');
    expect(c.workerConcurrency).toBe(4);
    expect(c.outboundAllowlist).toEqual([]);
    expect(c.signup).toBe('first');
  });

  it('a bad value stops start-up with a message naming each variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', STORAGE: 'tape' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', STORAGE: 'tape', OUTBOUND_ALLOWLIST: '10.0.0.0' });
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT/);
      expect((err as Error).message).toMatch(/STORAGE/);
      expect((err as Error).message).toMatch(/OUTBOUND_ALLOWLIST/);
    }
  });

  it('refuses an AppView that is not http(s), or http without OUTBOUND_ALLOW_HTTP', () => {
    expect(() => loadConfig({ BLUESKY_APPVIEW_URL: 'ftp://appview.example' })).toThrow(
      /BLUESKY_APPVIEW_URL: must be http\(s\)/,
    );
    expect(() => loadConfig({ BLUESKY_APPVIEW_URL: 'http://127.0.0.1:2584' })).toThrow(
      /BLUESKY_APPVIEW_URL: is http: set OUTBOUND_ALLOW_HTTP=true/,
    );
    const local = { BLUESKY_APPVIEW_URL: 'http://127.0.0.1:2584/', OUTBOUND_ALLOW_HTTP: 'true' };
    expect(loadConfig(local).blueskyAppViewUrl).toBe('http://127.0.0.1:2584');
  });

  it("reads each OAuth platform's addresses and app, with the documented defaults", () => {
    const apps = loadConfig({}).platformApps;
    expect(apps.x).toMatchObject({
      apiUrl: 'https://api.x.com',
      oauthUrl: 'https://api.x.com',
      authorizeUrl: 'https://x.com/i/oauth2/authorize',
      clientId: undefined,
      clientVars: ['X_CLIENT_ID', 'X_CLIENT_SECRET'],
    });
    expect(apps.linkedin.oauthUrl).toBe('https://www.linkedin.com');
    expect(apps.youtube.clientVars).toEqual(['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET']);
    expect(apps.facebook.videoUrl).toBe('https://graph-video.facebook.com');
    const local = loadConfig({
      X_API_URL: 'http://127.0.0.1:4010/',
      X_CLIENT_ID: 'abc',
      X_CLIENT_SECRET: 'def',
      OUTBOUND_ALLOW_HTTP: 'true',
    }).platformApps.x;
    expect(local).toMatchObject({ apiUrl: 'http://127.0.0.1:4010', clientId: 'abc' });
    expect(() => loadConfig({ LINKEDIN_OAUTH_URL: 'http://127.0.0.1:4011' })).toThrow(
      /LINKEDIN_OAUTH_URL: is http: set OUTBOUND_ALLOW_HTTP=true/,
    );
    expect(() => loadConfig({ TIKTOK_API_URL: 'ftp://tiktok.example' })).toThrow(/TIKTOK_API_URL/);
  });

  it('takes PUBLIC_BASE_URL only as an http(s) origin and path, never credentials, a query or a fragment', () => {
    for (const bad of [
      'javascript:alert(1)//x',
      'file:///etc/passwd',
      'http://admin:Hunter2Passw0rd@10.0.0.5:3927',
      'https://social.example.com/?next=1',
      'https://social.example.com/#top',
    ]) {
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad }), bad).toThrow(/PUBLIC_BASE_URL/);
      // The refusal never repeats a password it was given.
      expect(() => loadConfig({ PUBLIC_BASE_URL: bad })).not.toThrow(/Hunter2/);
    }
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://social.example.com/app/' }).publicBaseUrl).toBe(
      'https://social.example.com/app',
    );
  });

  it('parses the outbound allowlist', () => {
    expect(loadConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8, ::1/128' }).outboundAllowlist).toEqual([
      '127.0.0.0/8',
      '::1/128',
    ]);
  });

  describe('secrets', () => {
    const generated = 'q5Jx0vX1W8b2nVtL4kR9sHc3mZ7yPd6fAe0uGi1oTjE';

    it.each([
      ['SESSION_SECRET', 'change-me-to-32-or-more-random-characters'],
      ['SESSION_SECRET', 'CHANGEME-CHANGEME-CHANGEME-CHANGEME'],
      ['MEDIA_URL_SECRET', 'my-very-long-media-url-secret-value-here'],
      ['MEDIA_URL_SECRET', 'replace-me-with-a-long-random-string!!'],
      ['DATABASE_URL', 'postgres://sps:change-me@postgres:5432/sps'],
      ['CREDENTIALS_KEY', 'changemechangemechangemechangemechangemecha='],
    ])('%s=%s is refused as a placeholder, naming the variable', (name, value) => {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}: .*placeholder.*`));
    });

    it('generated values are taken, and a short secret is refused', () => {
      const key = 'zb2Y8m9s0nHq1JtW3cVx5LrK7pD4fGa6uE2iO8yT1Q0=';
      const c = loadConfig({
        SESSION_SECRET: generated,
        MEDIA_URL_SECRET: `${generated}x`,
        CREDENTIALS_KEY: key,
        DATABASE_URL: 'postgres://sps:Jq3vT8wXo2LmZ4@db.internal:5432/sps',
      });
      expect(c).toMatchObject({
        sessionSecret: generated,
        mediaUrlSecret: `${generated}x`,
        credentialsKey: key,
      });
      expect(() => loadConfig({ MEDIA_URL_SECRET: 'too-short' })).toThrow(
        /MEDIA_URL_SECRET: must be at least 32 characters/,
      );
    });
  });
});
