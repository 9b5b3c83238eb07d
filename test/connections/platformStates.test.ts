// Every platform's state from the brand's connections, the operator's app variables and the
// OAuthApps this process has: what list_accounts' `platforms` and the Accounts page show.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { platformStates } from '../../core/connections/platforms.ts';
import { standInOAuthApp } from '../support/oauthPlatform.ts';

const config = loadConfig({
  DATABASE_URL: 'postgres://unused/unused',
  X_CLIENT_ID: 'x-app',
  X_CLIENT_SECRET: 'x-secret',
  LINKEDIN_CLIENT_ID: 'only-the-id',
});
const connection = (platform: string, more: Record<string, unknown> = {}) =>
  ({
    id: '1',
    brand_id: '7',
    platform,
    handle: '@shop',
    status: 'active',
    last_error: null,
    created_at: '2026-01-01T00:00:00.000Z',
    ...more,
  }) as never;

describe('platformStates', () => {
  it('says each platform of each brand once, in the platforms order', () => {
    const states = platformStates(config, {}, ['7', '8'], []);
    expect(states).toHaveLength(20);
    expect(states.slice(0, 3).map((s) => [s.brand_id, s.platform])).toEqual([
      ['7', 'bluesky'],
      ['7', 'mastodon'],
      ['7', 'x'],
    ]);
  });

  it('an OAuth platform needs both its variables and an OAuthApp to connect from the dashboard', () => {
    const by = (apps: Parameters<typeof platformStates>[1]) =>
      Object.fromEntries(platformStates(config, apps, ['7'], []).map((s) => [s.platform, s]));
    expect(by({ x: standInOAuthApp('x') }).x).toMatchObject({
      state: 'not_connected',
      connect: 'oauth',
      variables: [],
    });
    expect(by({}).x).toMatchObject({ state: 'not_connected', connect: 'cli' });
    // The id alone is not enough: the secret's variable is named too.
    expect(by({ linkedin: standInOAuthApp('linkedin') }).linkedin).toMatchObject({
      state: 'not_configured',
      connect: 'cli',
      variables: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'],
    });
  });

  it("a connection's health, handle and expiry (reconnect_soon where the connection says it)", () => {
    const states = platformStates(
      config,
      {},
      ['7'],
      [
        connection('mastodon'),
        connection('x', {
          expires_at: '2026-02-01T00:00:00.000Z',
          reconnect_soon: true,
        }),
        connection('linkedin', { status: 'needs_reconnect', last_error: 'revoked' }),
      ],
    );
    const by = Object.fromEntries(states.map((s) => [s.platform, s]));
    expect(by.mastodon).toMatchObject({ state: 'connected', handle: '@shop', expires_at: null });
    expect(by.x).toMatchObject({
      state: 'connected',
      expires_at: '2026-02-01T00:00:00.000Z',
      reconnect_soon: true,
    });
    // Connected (by the CLI) though the operator's app is not set: reconnecting needs it.
    expect(by.linkedin).toMatchObject({
      state: 'needs_reconnect',
      last_error: 'revoked',
      variables: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'],
    });
    expect(by.bluesky).toMatchObject({ state: 'not_connected', connect: 'form' });
  });
});
