// X's OAuth 2.0 app (docs.x.com: fundamentals/authentication/oauth-2-0/authorization-code,
// user-access-token): the authorize page with PKCE S256, the code exchange and the refresh at
// {X_API_URL}/2/oauth2/token as a confidential client (HTTP Basic client_id:client_secret),
// and GET /2/users/me for the account. X is reported to rotate refresh tokens (single-use): the
// token a refresh answers is the only one kept.
import { z } from 'zod';
import type { PlatformApp } from '../../platformApps.ts';
import { PublicationError } from '../connector.ts';
import { documented, fieldOf, type PlatformResponse, platformRequest, refusal } from '../http.ts';
import type { OAuthApp, OAuthContext, OAuthTokens } from '../oauthApp.ts';
import { Me, reasonOf, X, xRefusal } from '../x/api.ts';
import { Seconds } from './grants.ts';

const TIMEOUT_MS = 15_000;

const TokenAnswer = z.object({
  access_token: z.string().min(1).max(5000),
  refresh_token: z.string().min(1).max(5000).optional(),
  expires_in: Seconds.optional(),
  scope: z.string().max(2000).optional(),
});

function clientOf(app: PlatformApp) {
  if (!app.clientId || !app.clientSecret)
    throw new PublicationError(
      `X's app credentials are not set: the operator sets ${app.clientVars.join(' and ')}.`,
      { retryable: false },
    );
  return { id: app.clientId, secret: app.clientSecret };
}

/** The refusals of the token endpoint that mean the grant is dead (RFC 6749 §5.2). */
const DEAD_GRANT = /^(invalid_grant|invalid_request|invalid_token)$/;

async function tokenRequest(
  ctx: OAuthContext,
  form: Record<string, string>,
  what: 'exchange' | 'refresh',
): Promise<OAuthTokens> {
  const client = clientOf(ctx.app);
  const res: PlatformResponse = await platformRequest(
    ctx.policy,
    X,
    `${ctx.app.oauthUrl}/2/oauth2/token`,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
      },
      // client_id in the body too: X's prose asks for it, and its Basic examples omit it.
      body: new URLSearchParams({ ...form, client_id: client.id }).toString(),
      timeoutMs: TIMEOUT_MS,
    },
  );
  if (res.status === 429 || res.status >= 500) throw xRefusal(res);
  if (res.status < 200 || res.status >= 300) {
    // A refresh token X no longer honours needs the person to connect again; a refused client
    // (401) is the operator's to fix, and reconnecting would not help.
    const dead =
      what === 'refresh' && res.status === 400 && DEAD_GRANT.test(fieldOf(res, 'error') ?? '');
    throw refusal(X, res, reasonOf(res), { reconnect: dead });
  }
  const answer = documented(X, 'POST /2/oauth2/token', res, TokenAnswer);
  return {
    access_token: answer.access_token,
    ...(answer.refresh_token ? { refresh_token: answer.refresh_token } : {}),
    ...(answer.expires_in
      ? { expires_at: new Date(Date.now() + answer.expires_in * 1000).toISOString() }
      : {}),
    ...(answer.scope ? { scope: answer.scope } : {}),
  };
}

export const xOAuthApp: OAuthApp = {
  platform: 'x',
  scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
  pkce: true,

  authorizeUrl(app, flow) {
    const url = new URL(app.authorizeUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId ?? '',
      redirect_uri: flow.redirectUri,
      scope: this.scopes.join(' '),
      state: flow.state,
      ...(flow.codeChallenge
        ? { code_challenge: flow.codeChallenge, code_challenge_method: 'S256' }
        : {}),
    }).toString();
    return url.toString();
  },

  exchangeCode(ctx, flow) {
    return tokenRequest(
      ctx,
      {
        grant_type: 'authorization_code',
        code: flow.code,
        redirect_uri: flow.redirectUri,
        ...(flow.codeVerifier ? { code_verifier: flow.codeVerifier } : {}),
      },
      'exchange',
    );
  },

  async refresh(ctx, tokens) {
    if (!tokens.refresh_token)
      throw new PublicationError(
        'The X connection has no refresh token (it was connected without offline.access); reconnect it.',
        { retryable: false, reconnect: true },
      );
    // The answer's refresh token replaces the old one, which X may already have retired.
    return tokenRequest(
      ctx,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      'refresh',
    );
  },

  async identify(ctx, credentials) {
    const token = credentials.access_token;
    if (typeof token !== 'string' || !token)
      throw new PublicationError('The X connection has no access_token.', { retryable: false });
    const res = await platformRequest(ctx.policy, X, `${ctx.app.apiUrl}/2/users/me`, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}` },
      timeoutMs: TIMEOUT_MS,
    });
    if (res.status < 200 || res.status >= 300) throw xRefusal(res);
    const me = documented(X, 'GET /2/users/me', res, Me).data;
    return { handle: `@${me.username}`, fields: { user_id: me.id, username: me.username } };
  },
};
