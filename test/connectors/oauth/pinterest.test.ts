// Pinterest's OAuthApp against a stand-in of its token endpoint and user_account on loopback
// (test/support/platforms/pinterestOauth.ts), which checks every form it is sent against
// Pinterest's published OpenAPI schemas: HTTP Basic client authentication, the continuous
// refresh token replaced on every refresh, a dead one asking for a reconnect, the username.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_APPS } from '../../../core/connectors/oauth/index.ts';
import { pinterestOAuthApp as app } from '../../../core/connectors/oauth/pinterest.ts';
import type { OAuthContext } from '../../../core/connectors/oauthApp.ts';
import { failure, inDays } from '../../support/platforms/failure.ts';
import {
  PINTEREST_APP,
  type PinterestStandIn,
  startPinterestOauth,
} from '../../support/platforms/pinterestOauth.ts';
import { oauthContext } from '../../support/platforms/standIn.ts';

const REDIRECT = 'https://sps.example/connect/pinterest/callback';
let pinterest: PinterestStandIn;
let ctx: OAuthContext;
beforeAll(async () => {
  pinterest = await startPinterestOauth(REDIRECT);
  ctx = oauthContext('pinterest', pinterest.url, PINTEREST_APP);
});
afterAll(async () => {
  // Nothing sent or answered outside Pinterest's published schemas.
  expect(pinterest.misfits).toEqual([]);
  await pinterest.close();
});

describe('pinterest: connect', () => {
  it('the authorize page gets the app id, the callback, the scopes and the state', () => {
    expect(OAUTH_APPS.pinterest).toBe(app);
    const url = new URL(app.authorizeUrl(ctx.app, { state: 's-5', redirectUri: REDIRECT }));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: PINTEREST_APP.id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'boards:read,pins:read,pins:write,user_accounts:read',
      state: 's-5',
    });
  });

  it('a code becomes tokens, the app authenticated with HTTP Basic', async () => {
    pinterest.received.length = 0;
    const tokens = await app.exchangeCode(ctx, {
      code: pinterest.issueCode(),
      redirectUri: REDIRECT,
    });
    expect(pinterest.access.get(tokens.access_token)).toBe('brand');
    expect(pinterest.refresh.get(tokens.refresh_token!)).toBe('brand');
    expect(inDays(tokens.expires_at)).toBeCloseTo(30, 0);
    expect(inDays(tokens.refresh_expires_at)).toBeCloseTo(60, 0);
    const [req] = pinterest.received;
    expect(req).toMatchObject({ method: 'POST', path: '/v5/oauth/token' });
    // The secret travels only in the Basic header, never in the form.
    expect(req!.form.client_secret).toBeUndefined();
    expect(req!.form).toMatchObject({ grant_type: 'authorization_code', redirect_uri: REDIRECT });
  });

  it("a refused code fails with Pinterest's message, not as a reconnect", async () => {
    const err = await failure(
      app.exchangeCode(ctx, { code: 'pcode-unknown', redirectUri: REDIRECT }),
    );
    expect(err.message).toBe('Pinterest answered 400: Invalid authorization code.');
    expect(err.reconnect).toBe(false);
  });
});

describe('pinterest: refresh', () => {
  it('the new refresh token replaces the old, which is dead from then on', async () => {
    const first = pinterest.pair();
    const next = await app.refresh(ctx, first);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(pinterest.refresh.get(next.refresh_token!)).toBe('brand');
    expect(inDays(next.refresh_expires_at)).toBeCloseTo(60, 0);
    const err = await failure(app.refresh(ctx, first));
    expect(err).toMatchObject({ reconnect: true, retryable: false });
    expect(err.message).not.toContain(first.refresh_token);
  });

  it('app credentials Pinterest refuses (401) also end the refresh, with no secret shown', async () => {
    const wrong = oauthContext('pinterest', pinterest.url, {
      id: PINTEREST_APP.id,
      secret: 'nope-wrong',
    });
    const err = await failure(app.refresh(wrong, pinterest.pair()));
    expect(err.message).toBe('Pinterest answered 401: Authentication failed.');
    expect(err.message).not.toContain('nope-wrong');
  });

  it('a 500 is retried later, not a reconnect', async () => {
    pinterest.answerNext('POST /v5/oauth/token', {
      status: 500,
      body: { code: 0, message: 'Internal error' },
    });
    expect(await failure(app.refresh(ctx, pinterest.pair()))).toMatchObject({
      retryable: true,
      reconnect: false,
    });
  });
});

describe('pinterest: identity', () => {
  it("names the username (the board comes from the connection's board_id)", async () => {
    const { access_token } = pinterest.pair();
    expect(await app.identify(ctx, { access_token, board_id: '549755885175' })).toEqual({
      handle: 'brandstudio',
      fields: { username: 'brandstudio' },
    });
  });

  it('a revoked token is refused', async () => {
    const { access_token } = pinterest.pair('other');
    pinterest.revoke('other');
    const err = await failure(app.identify(ctx, { access_token }));
    expect(err.message).toBe('Pinterest answered 401: Authentication failed.');
  });
});
