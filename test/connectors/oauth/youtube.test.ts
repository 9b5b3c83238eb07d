// YouTube's OAuthApp against a stand-in of Google's token endpoint and channels.list on
// loopback (test/support/platforms/googleOauth.ts): offline access with consent, the code
// traded at {GOOGLE_OAUTH_URL}/token, a refresh keeping the refresh token Google does not
// rotate, invalid_grant asking for a reconnect, and the channel named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_APPS } from '../../../core/connectors/oauth/index.ts';
import { youtubeOAuthApp as app } from '../../../core/connectors/oauth/youtube.ts';
import type { OAuthContext } from '../../../core/connectors/oauthApp.ts';
import { failure, inDays } from '../../support/platforms/failure.ts';
import {
  GOOGLE_APP,
  type GoogleStandIn,
  startGoogleOauth,
} from '../../support/platforms/googleOauth.ts';
import { oauthContext } from '../../support/platforms/standIn.ts';

const REDIRECT = 'https://sps.example/connect/youtube/callback';
let google: GoogleStandIn;
let ctx: OAuthContext;
beforeAll(async () => {
  google = await startGoogleOauth(REDIRECT);
  ctx = oauthContext('youtube', google.url, GOOGLE_APP);
});
afterAll(() => google.close());

describe('youtube: connect', () => {
  it('the authorize page asks for offline access with consent, and the YouTube scopes', () => {
    expect(OAUTH_APPS.youtube).toBe(app);
    const url = new URL(app.authorizeUrl(ctx.app, { state: 's-4', redirectUri: REDIRECT }));
    expect(`${url.origin}${url.pathname}`).toBe(`${google.url}/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: GOOGLE_APP.id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope:
        'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: 's-4',
    });
  });

  it('a code becomes an access token, a refresh token and the scopes, at /token', async () => {
    google.received.length = 0;
    const tokens = await app.exchangeCode(ctx, { code: google.issueCode(), redirectUri: REDIRECT });
    expect(google.access.get(tokens.access_token)).toBe('brand');
    expect(google.refresh.get(tokens.refresh_token!)).toBe('brand');
    expect(inDays(tokens.expires_at) * 24).toBeCloseTo(1, 1);
    expect(tokens.scope).toContain('youtube.upload');
    expect(google.received[0]).toMatchObject({ method: 'POST', path: '/token' });
    expect(google.received[0]!.form).toMatchObject({
      grant_type: 'authorization_code',
      client_id: GOOGLE_APP.id,
      client_secret: GOOGLE_APP.secret,
      redirect_uri: REDIRECT,
    });
  });

  it('an answer without a refresh token says how to get one', async () => {
    google.answerNext('POST /token', {
      status: 200,
      body: { access_token: 'ya29.x', expires_in: 3599, token_type: 'Bearer' },
    });
    const err = await failure(app.exchangeCode(ctx, { code: 'c', redirectUri: REDIRECT }));
    expect(err.message).toMatch(/answered no refresh token/);
  });
});

describe('youtube: refresh', () => {
  it('a new access token; the refresh token, which Google keeps, is kept', async () => {
    const p = google.pair();
    const next = await app.refresh(ctx, { ...p, scope: 'kept' });
    expect(next.access_token).not.toBe(p.access_token);
    expect(google.access.get(next.access_token)).toBe('brand');
    expect(next.refresh_token).toBe(p.refresh_token);
    expect(google.received.at(-1)!.form).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: p.refresh_token,
    });
  });

  it('invalid_grant (revoked, expired) asks for a reconnect, without the token in the message', async () => {
    const p = google.pair('plain');
    google.revoke('plain');
    const err = await failure(app.refresh(ctx, p));
    expect(err).toMatchObject({ reconnect: true, retryable: false, status: 400 });
    expect(err.message).toBe(
      'YouTube answered 400: invalid_grant: Token has been expired or revoked.',
    );
  });

  it('no answer at all is retried later, not a reconnect', async () => {
    const closed = oauthContext('youtube', 'http://127.0.0.1:9', GOOGLE_APP);
    expect(await failure(app.refresh(closed, google.pair()))).toMatchObject({
      retryable: true,
      reconnect: false,
    });
  });
});

describe('youtube: identity', () => {
  it('names the channel by its handle, with its id and title', async () => {
    expect(await app.identify(ctx, { access_token: google.pair().access_token })).toEqual({
      handle: '@brandstudio',
      fields: { channel_id: 'UCbrandstudio00000000001', channel_title: 'Brand Studio' },
    });
  });

  it('a channel without a handle is named by its title', async () => {
    const identity = await app.identify(ctx, { access_token: google.pair('plain').access_token });
    expect(identity.handle).toBe('Plain Channel');
  });

  it('a Google account without a channel is told to create one', async () => {
    const err = await failure(
      app.identify(ctx, { access_token: google.pair('nochannel').access_token }),
    );
    expect(err.message).toMatch(/no channel for this Google account/);
  });

  it("a bad token is refused with Google's reason", async () => {
    const err = await failure(app.identify(ctx, { access_token: 'ya29.unknown' }));
    expect(err.message).toMatch(/^YouTube answered 401: UNAUTHENTICATED: Request had invalid/);
  });
});
