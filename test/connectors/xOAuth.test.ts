// X's OAuthApp against the X stand-in: the authorize page with PKCE S256 and the publishing
// scopes, the code exchanged as a confidential client, the account named by /2/users/me, and
// refresh tokens that X rotates (a spent one is refused and asks for a reconnect).
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PublicationError } from '../../core/connectors/connector.ts';
import { OAUTH_APPS } from '../../core/connectors/oauth/index.ts';
import { xOAuthApp } from '../../core/connectors/oauth/x.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { standInApp, useXStandIn } from '../support/platforms/xHarness.ts';

const policy = outboundPolicy({ outboundAllowlist: ['127.0.0.0/8'], outboundAllowHttp: true });
const REDIRECT = 'https://sps.example/connect/x/callback';
const x = useXStandIn();

/** The browser's part of the flow: the authorize page answers with the callback's code. */
async function authorize(url: string) {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

describe("X's OAuth app", () => {
  it('is the registered app for x', () => {
    expect(OAUTH_APPS.x).toBe(xOAuthApp);
  });

  it('connects: authorize with PKCE S256, exchange the code, name the account', async () => {
    const app = standInApp(x);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const url = new URL(
      xOAuthApp.authorizeUrl(app, {
        state: 'st4te',
        redirectUri: REDIRECT,
        codeChallenge: challenge,
      }),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: x.clientId,
      redirect_uri: REDIRECT,
      scope: 'tweet.read tweet.write users.read media.write offline.access',
      state: 'st4te',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const back = await authorize(url.toString());
    expect(back.searchParams.get('state')).toBe('st4te');
    const ctx = { app, policy };
    const flow = { code: back.searchParams.get('code')!, redirectUri: REDIRECT };
    const tokens = await xOAuthApp.exchangeCode(ctx, { ...flow, codeVerifier: verifier });
    expect(tokens).toMatchObject({
      access_token: expect.stringMatching(/^xat-/),
      refresh_token: expect.stringMatching(/^xrt-/),
      scope: 'tweet.read tweet.write users.read media.write offline.access',
    });
    expect(Date.parse(tokens.expires_at!) - Date.now()).toBeGreaterThan(7_100_000);
    expect(await xOAuthApp.identify(ctx, tokens)).toEqual({
      handle: '@brand',
      fields: { user_id: x.user.id, username: 'brand' },
    });
    // A code is good once: X refuses it the second time, saying why.
    const again = await xOAuthApp
      .exchangeCode(ctx, { ...flow, codeVerifier: verifier })
      .catch((e: PublicationError) => e);
    expect(again).toBeInstanceOf(PublicationError);
    expect((again as PublicationError).message).toBe(
      'X answered 400: invalid_request: Value passed for the token was invalid.',
    );
  });

  it('refuses a code exchanged without its verifier', async () => {
    const app = standInApp(x);
    const challenge = createHash('sha256').update('the-verifier').digest('base64url');
    const back = await authorize(
      xOAuthApp.authorizeUrl(app, { state: 's', redirectUri: REDIRECT, codeChallenge: challenge }),
    );
    const code = back.searchParams.get('code')!;
    await expect(
      xOAuthApp.exchangeCode(
        { app, policy },
        { code, redirectUri: REDIRECT, codeVerifier: 'wrong' },
      ),
    ).rejects.toThrow(/X answered 400/);
  });

  it('refreshes into new tokens; the spent refresh token is refused and asks for a reconnect', async () => {
    const app = standInApp(x);
    const first = x.issueTokens();
    const next = await xOAuthApp.refresh({ app, policy }, first);
    expect(next.refresh_token).toMatch(/^xrt-/);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(next.access_token).not.toBe(first.access_token);
    const spent = await xOAuthApp.refresh({ app, policy }, first).catch((e: PublicationError) => e);
    expect(spent).toMatchObject({ reconnect: true, retryable: false, status: 400 });
    // Reusing a spent token revoked its family: the newer one is dead too.
    await expect(xOAuthApp.refresh({ app, policy }, next)).rejects.toMatchObject({
      reconnect: true,
    });
  });

  it('names the variables to set when the operator has no X app', async () => {
    const app = { ...standInApp(x), clientId: undefined, clientSecret: undefined };
    await expect(xOAuthApp.refresh({ app, policy }, x.issueTokens())).rejects.toThrow(
      "X needs the operator's app: set X_CLIENT_ID and X_CLIENT_SECRET.",
    );
  });

  it('never shows the client secret or a token in an error', async () => {
    const app = { ...standInApp(x), clientSecret: 'wrong-secret' };
    const tokens = x.issueTokens();
    const err = (await xOAuthApp
      .refresh({ app, policy }, tokens)
      .catch((e: PublicationError) => e)) as PublicationError;
    expect(err).toMatchObject({ reconnect: false, status: 401 });
    expect(err.message).toBe(
      'X answered 401: unauthorized_client: Missing valid authorization header',
    );
    for (const secret of [
      'wrong-secret',
      x.clientSecret,
      tokens.refresh_token,
      tokens.access_token,
    ])
      expect(err.message).not.toContain(secret);
  });

  it('never shows a secret X echoes in a refusal, and a dead grant asks for a reconnect', async () => {
    const app = standInApp(x);
    const tokens = x.issueTokens();
    x.inject({
      line: 'POST /2/oauth2/token',
      answer: {
        status: 400,
        body: JSON.stringify({
          error: 'invalid_grant',
          error_description: `Refresh token ${tokens.refresh_token} was revoked`,
        }),
      },
    });
    const err = (await xOAuthApp
      .refresh({ app, policy }, tokens)
      .catch((e: PublicationError) => e)) as PublicationError;
    expect(err).toMatchObject({ reconnect: true, retryable: false, status: 400 });
    expect(err.message).toBe('X answered 400: invalid_grant: Refresh token [redacted] was revoked');
  });

  it('refuses a token answer whose token is not one (spaces, control characters)', async () => {
    const app = standInApp(x);
    x.inject({
      line: 'POST /2/oauth2/token',
      answer: {
        status: 200,
        body: JSON.stringify({
          token_type: 'bearer',
          access_token: 'xat-one two\u0000',
          refresh_token: 'xrt-fine',
          expires_in: 7200,
        }),
      },
    });
    await expect(xOAuthApp.refresh({ app, policy }, x.issueTokens())).rejects.toThrow(
      /^X answered 200 to POST \/2\/oauth2\/token without the JSON it documents \(access_token: not a token\)/,
    );
  });
});
