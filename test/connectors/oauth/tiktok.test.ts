// TikTok's OAuthApp against a stand-in of its OAuth and user info endpoints on loopback
// (test/support/platforms/tiktokOauth.ts): client_key on the authorize page, the form POST to
// /v2/oauth/token/, the rotating refresh token kept, a spent or revoked one asking for a
// reconnect, and the open_id publishing needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_APPS } from '../../../core/connectors/oauth/index.ts';
import { tiktokOAuthApp as app } from '../../../core/connectors/oauth/tiktok.ts';
import type { OAuthContext } from '../../../core/connectors/oauthApp.ts';
import { failure, inDays } from '../../support/platforms/failure.ts';
import { oauthContext } from '../../support/platforms/standIn.ts';
import {
  startTikTokOauth,
  TIKTOK_APP,
  type TikTokStandIn,
} from '../../support/platforms/tiktokOauth.ts';

const REDIRECT = 'https://sps.example/connect/tiktok/callback';
let tiktok: TikTokStandIn;
let ctx: OAuthContext;
beforeAll(async () => {
  tiktok = await startTikTokOauth(REDIRECT);
  ctx = oauthContext('tiktok', tiktok.url, TIKTOK_APP);
});
afterAll(() => tiktok.close());

describe('tiktok: connect', () => {
  it('the authorize page gets the client_key (not client_id), scopes, callback and state', () => {
    expect(OAUTH_APPS.tiktok).toBe(app);
    expect(app.pkce).toBe(false);
    const url = new URL(app.authorizeUrl(ctx.app, { state: 's-3', redirectUri: REDIRECT }));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_key: TIKTOK_APP.id,
      scope: 'user.info.basic,video.publish,video.list',
      redirect_uri: REDIRECT,
      state: 's-3',
      response_type: 'code',
    });
  });

  it('a code becomes tokens with their lifetimes and the open_id, by a form POST', async () => {
    tiktok.received.length = 0;
    const tokens = await app.exchangeCode(ctx, { code: tiktok.issueCode(), redirectUri: REDIRECT });
    expect(tiktok.access.get(tokens.access_token)).toBe('brand');
    expect(tiktok.refresh.get(tokens.refresh_token!)).toBe('brand');
    expect(inDays(tokens.expires_at) * 24).toBeCloseTo(2, 1);
    expect(inDays(tokens.refresh_expires_at)).toBeCloseTo(180, 0);
    expect(tokens).toMatchObject({ open_id: '-000Brand1OpenId' });
    const [req] = tiktok.received;
    expect(req).toMatchObject({ method: 'POST', path: '/v2/oauth/token/' });
    expect(req!.form).toMatchObject({
      client_key: TIKTOK_APP.id,
      client_secret: TIKTOK_APP.secret,
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
    });
  });

  it("a refused code (TikTok's error in the body) fails without a secret in the message", async () => {
    const code = tiktok.issueCode();
    await app.exchangeCode(ctx, { code, redirectUri: REDIRECT });
    const err = await failure(app.exchangeCode(ctx, { code, redirectUri: REDIRECT }));
    expect(err.message).toMatch(
      /^TikTok answered 200: invalid_grant: Authorization code is expired/,
    );
    expect(err).toMatchObject({ retryable: false, reconnect: false });
    expect(err.message).not.toContain(code);
    expect(err.message).not.toContain(TIKTOK_APP.secret);
  });
});

describe('tiktok: refresh', () => {
  it('the rotated refresh token is the one kept; the spent one is dead', async () => {
    const first = tiktok.pair();
    const next = await app.refresh(ctx, first);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(tiktok.refresh.has(next.refresh_token!)).toBe(true);
    expect(tiktok.received.at(-1)!.form).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_key: TIKTOK_APP.id,
    });
    // Spending the old one again is what a second job must never do: TikTok refuses it.
    const err = await failure(app.refresh(ctx, first));
    expect(err).toMatchObject({ reconnect: true, retryable: false });
    expect(err.message).not.toContain(first.refresh_token);
    expect((await app.refresh(ctx, next)).access_token).toBeTruthy();
  });

  it('a revoked refresh token asks for a reconnect, also answered as a 400', async () => {
    const p = tiktok.pair('other');
    tiktok.revoke('other');
    expect(await failure(app.refresh(ctx, p))).toMatchObject({ reconnect: true });
    tiktok.answerNext('POST /v2/oauth/token/', {
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Refresh token is invalid or expired.' },
    });
    expect(await failure(app.refresh(ctx, tiktok.pair()))).toMatchObject({
      reconnect: true,
      status: 400,
    });
  });

  it('a 5xx or 429 is retried later, not a reconnect', async () => {
    tiktok.answerNext('POST /v2/oauth/token/', {
      status: 429,
      body: { error: 'rate_limit_exceeded', error_description: 'Too many requests' },
      headers: { 'retry-after': '12' },
    });
    expect(await failure(app.refresh(ctx, tiktok.pair()))).toMatchObject({
      retryable: true,
      reconnect: false,
      retryAfterMs: 12_000,
    });
    tiktok.answerNext('POST /v2/oauth/token/', { status: 502, raw: '<html>Bad gateway</html>' });
    expect(await failure(app.refresh(ctx, tiktok.pair()))).toMatchObject({
      retryable: true,
      reconnect: false,
    });
  });

  it('a connection without a refresh token asks for a reconnect', async () => {
    expect(await failure(app.refresh(ctx, { access_token: 'act.alone' }))).toMatchObject({
      reconnect: true,
    });
  });
});

describe('tiktok: identity', () => {
  it('names the display name and the open_id', async () => {
    const { access_token } = tiktok.pair();
    expect(await app.identify(ctx, { access_token })).toEqual({
      handle: 'Brand Studio',
      fields: { open_id: '-000Brand1OpenId' },
    });
    const req = tiktok.received.at(-1)!;
    expect(req.query.fields).toBe('open_id,union_id,avatar_url,display_name');
    expect(req.headers.authorization).toBe(`Bearer ${access_token}`);
  });

  it("a bad token is refused with TikTok's reason, without the token", async () => {
    const err = await failure(app.identify(ctx, { access_token: 'act.unknown-token' }));
    expect(err.message).toBe(
      'TikTok answered 401: access_token_invalid: The access token is invalid or not found in the request.',
    );
  });

  it('a token of another account than the open_id given is refused', async () => {
    const { access_token } = tiktok.pair('other');
    const err = await failure(app.identify(ctx, { access_token, open_id: '-000Brand1OpenId' }));
    expect(err.message).toMatch(/acts as open_id -000Other2OpenId/);
  });
});
