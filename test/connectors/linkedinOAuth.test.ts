// LinkedIn's OAuthApp against the stand-in's token endpoint and userinfo: the authorize page's
// address, the code exchange with and without a partner refresh token, the refresh (or the
// reconnect when there is nothing to refresh with), and the member it names.
import { describe, expect, it } from 'vitest';
import { PublicationError } from '../../core/connectors/connector.ts';
import { nextMidnightUtc } from '../../core/connectors/http.ts';
import { LINKEDIN_VERSION } from '../../core/connectors/linkedin/api.ts';
import { OAUTH_APPS } from '../../core/connectors/oauth/index.ts';
import { linkedinOAuthApp } from '../../core/connectors/oauth/linkedin.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { platformApps } from '../../core/platformApps.ts';
import { startJsonServer } from '../support/jsonServer.ts';
import { linkedinEnv, useLinkedInStandIn } from '../support/platforms/linkedinHarness.ts';

const policy = outboundPolicy({ outboundAllowlist: ['127.0.0.0/8'], outboundAllowHttp: true });
const REDIRECT = 'https://social.example/connect/linkedin/callback';
const DAY = 86_400_000;

const li = useLinkedInStandIn();

/** The OAuth context of the operator's app at the stand-in, with `env` changing its variables. */
const ctx = (env: Record<string, string> = {}) => ({
  policy,
  app: platformApps({ ...linkedinEnv(li), ...env }).linkedin,
});

/** The failure `promise` ends with. */
const failure = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PublicationError);
  return err as PublicationError;
};

describe("LinkedIn's OAuth app", () => {
  it('is the registered app for linkedin, and the version it speaks is one LinkedIn serves', () => {
    expect(OAUTH_APPS.linkedin).toBe(linkedinOAuthApp);
    expect(LINKEDIN_VERSION).toMatch(/^20\d{4}$/);
  });

  it('sends the browser to the authorize page with the scopes, the state and no PKCE', () => {
    expect(linkedinOAuthApp.pkce).toBe(false);
    const url = new URL(
      linkedinOAuthApp.authorizeUrl(ctx().app, { state: 'st-1', redirectUri: REDIRECT }),
    );
    expect(`${url.origin}${url.pathname}`).toBe('https://www.linkedin.com/oauth/v2/authorization');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: li.clientId,
      redirect_uri: REDIRECT,
      state: 'st-1',
      scope: 'openid profile w_member_social',
    });
  });

  it('trades a code for a 60-day token, without a refresh token for an ordinary app', async () => {
    const { sub } = li.member();
    const tokens = await linkedinOAuthApp.exchangeCode(ctx(), {
      code: li.codeFor(sub, REDIRECT),
      redirectUri: REDIRECT,
    });
    expect(tokens.refresh_token).toBeUndefined();
    expect(Date.parse(tokens.expires_at!) - Date.now()).toBeGreaterThan(59 * DAY);
    expect(await linkedinOAuthApp.identify(ctx(), tokens)).toEqual({
      handle: 'Ada Lovelace',
      fields: { sub },
    });
  });

  it("keeps a partner's refresh token and when it expires", async () => {
    const { sub } = li.member({ partner: true, name: 'Grace Hopper' });
    const tokens = await linkedinOAuthApp.exchangeCode(ctx(), {
      code: li.codeFor(sub, REDIRECT),
      redirectUri: REDIRECT,
    });
    expect(tokens.refresh_token).toMatch(/^AR-/);
    expect(Date.parse(tokens.refresh_expires_at!) - Date.now()).toBeGreaterThan(364 * DAY);
    const fresh = await linkedinOAuthApp.refresh(ctx(), tokens);
    expect(fresh.access_token).not.toBe(tokens.access_token);
    expect(fresh.refresh_token).toBe(tokens.refresh_token);
    expect(Date.parse(fresh.refresh_expires_at!)).toBeLessThanOrEqual(
      Date.parse(tokens.refresh_expires_at!),
    );
    expect((await linkedinOAuthApp.identify(ctx(), fresh)).handle).toBe('Grace Hopper');
  });

  it('refuses a code LinkedIn does not accept without showing the client secret', async () => {
    const err = await failure(
      linkedinOAuthApp.exchangeCode(ctx(), { code: 'made-up', redirectUri: REDIRECT }),
    );
    expect(err.reconnect).toBe(false);
    expect(err).toMatchObject({ retryable: false, status: 400 });
    expect(err.message).toMatch(/^LinkedIn answered 400: /);
    expect(err.message).not.toContain(li.clientSecret);
  });

  it('asks for a reconnect when there is no refresh token, or LinkedIn refuses it', async () => {
    const before = li.tokenRequests.length;
    const none = await failure(linkedinOAuthApp.refresh(ctx(), { access_token: 'AQ-old' }));
    expect(none).toMatchObject({ reconnect: true, retryable: false });
    expect(none.message).toMatch(/60 days.*no refresh token.*reconnect the account/);
    const expired = await failure(
      linkedinOAuthApp.refresh(ctx(), {
        access_token: 'AQ-old',
        refresh_token: 'AR-old',
        refresh_expires_at: new Date(Date.now() - 1000).toISOString(),
      }),
    );
    expect(expired.reconnect).toBe(true);
    // Neither was asked of LinkedIn.
    expect(li.tokenRequests.length).toBe(before);
    const refused = await failure(
      linkedinOAuthApp.refresh(ctx(), { access_token: 'AQ-old', refresh_token: 'AR-unknown' }),
    );
    expect(refused).toMatchObject({ reconnect: true, retryable: false });
    expect(refused.message).toMatch(/^LinkedIn answered 400: /);
    expect(refused.message).not.toContain('AR-unknown');
  });

  it('says which variables to set when the operator has no LinkedIn app', async () => {
    const err = await failure(
      linkedinOAuthApp.refresh(ctx({ LINKEDIN_CLIENT_SECRET: '' }), {
        access_token: 'a',
        refresh_token: 'r',
      }),
    );
    expect(err.message).toBe(
      "LinkedIn needs the operator's app: set LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET.",
    );
  });

  it('refuses a token LinkedIn does not know when naming the member', async () => {
    const err = await failure(linkedinOAuthApp.identify(ctx(), { access_token: 'AQ-nobody' }));
    expect(err).toMatchObject({ reconnect: true, status: 401 });
    expect(err.message).toBe('LinkedIn answered 401: Invalid access token');
  });

  it('never shows a secret LinkedIn echoes in a refusal', async () => {
    const echo = await startJsonServer((req, reply) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const form = new URLSearchParams(body);
        reply(400, {
          error: 'invalid_grant',
          error_description: `refresh_token ${form.get('refresh_token')} with secret ${form.get('client_secret')} is revoked`,
        });
      });
    });
    try {
      const err = await failure(
        linkedinOAuthApp.refresh(ctx({ LINKEDIN_OAUTH_URL: echo.url }), {
          access_token: 'AQ-old',
          refresh_token: 'AR-echoed-back',
        }),
      );
      expect(err).toMatchObject({ reconnect: true, retryable: false, status: 400 });
      expect(err.message).toBe(
        'LinkedIn answered 400: invalid_grant: refresh_token [redacted] with secret [redacted] is revoked',
      );
    } finally {
      await echo.close();
    }
  });

  it("waits for the daily reset when the token endpoint's 429 says nothing of when", async () => {
    const throttled = await startJsonServer((_req, reply) =>
      reply(429, { status: 429, message: 'Throttled' }),
    );
    try {
      const err = await failure(
        linkedinOAuthApp.exchangeCode(ctx({ LINKEDIN_OAUTH_URL: throttled.url }), {
          code: 'c',
          redirectUri: REDIRECT,
        }),
      );
      expect(err).toMatchObject({ retryable: true, status: 429, retryAt: nextMidnightUtc() });
    } finally {
      await throttled.close();
    }
  });
});
