// X's OAuth 2.0 app (docs.x.com: fundamentals/authentication/oauth-2-0/authorization-code,
// user-access-token): the authorize page with PKCE S256, the code exchange and the refresh at
// {X_API_URL}/2/oauth2/token as a confidential client (HTTP Basic client_id:client_secret),
// and GET /2/users/me for the account. X is reported to rotate refresh tokens (single-use): the
// token a refresh answers is the only one kept.
import { z } from 'zod';
import { PublicationError } from '../connector.ts';
import {
  documented,
  fieldOf,
  PLATFORM_TIMEOUT_MS,
  type PlatformResponse,
  platformRequest,
} from '../http.ts';
import type { OAuthApp, OAuthContext, OAuthTokens } from '../oauthApp.ts';
import { Me, X, xRefusal } from '../x/api.ts';
import {
  type Call,
  clientOf,
  expiresAt,
  form,
  refusedIn,
  Seconds,
  Token,
  tokens,
} from './grants.ts';

const TOKEN_PATH = '/2/oauth2/token';

const TokenAnswer = z.object({
  access_token: Token,
  refresh_token: Token.optional(),
  expires_in: Seconds.optional(),
  scope: z.string().max(2000).optional(),
});

/** The refusals of the token endpoint that mean the grant is dead (RFC 6749 §5.2). */
const DEAD_GRANT = /^(invalid_grant|invalid_request|invalid_token)$/;

/**
 * POSTs a grant to X's token endpoint as a confidential client (HTTP Basic), the form and the
 * refusal as grants.ts builds them for every platform, except which refusal asks for a
 * reconnect: only a refresh X answers 400 with a dead grant's code. A refused client (401) is
 * the operator's to fix, and reconnecting would not help; so `send`, which decides by status
 * alone, is not used here.
 */
async function tokenRequest(
  ctx: OAuthContext,
  fields: Record<string, string>,
  refreshing: boolean,
): Promise<OAuthTokens> {
  const client = clientOf(ctx, X);
  const basic = Buffer.from(`${client.id}:${client.secret}`).toString('base64');
  // client_id in the body too: X's prose asks for it, and its Basic examples omit it.
  const body = form({ ...fields, client_id: client.id });
  const call: Call = {
    ctx,
    platform: X,
    method: 'POST',
    url: `${ctx.app.oauthUrl}${TOKEN_PATH}`,
    headers: { ...body.headers, authorization: `Basic ${basic}` },
    body: body.body,
    secrets: [fields.code, fields.code_verifier, fields.refresh_token, client.secret, basic],
    reconnectOnRefusal: false,
  };
  const res: PlatformResponse = await platformRequest(ctx.policy, X, call.url, {
    method: call.method,
    headers: call.headers,
    body: call.body,
    timeoutMs: PLATFORM_TIMEOUT_MS,
  });
  if (res.status < 200 || res.status >= 300) {
    const dead = refreshing && res.status === 400 && DEAD_GRANT.test(fieldOf(res, 'error') ?? '');
    throw refusedIn({ ...call, reconnectOnRefusal: dead }, res);
  }
  const answer = documented(X, `POST ${TOKEN_PATH}`, res, TokenAnswer);
  return tokens({
    access_token: answer.access_token,
    refresh_token: answer.refresh_token,
    expires_at: expiresAt(answer.expires_in),
    scope: answer.scope,
  });
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
      false,
    );
  },

  async refresh(ctx, current) {
    if (!current.refresh_token)
      throw new PublicationError(
        'The X connection has no refresh token (it was connected without offline.access); reconnect it.',
        { retryable: false, reconnect: true },
      );
    // The answer's refresh token replaces the old one, which X may already have retired.
    return tokenRequest(
      ctx,
      { grant_type: 'refresh_token', refresh_token: current.refresh_token },
      true,
    );
  },

  async identify(ctx, credentials) {
    const token = credentials.access_token;
    if (typeof token !== 'string' || !token)
      throw new PublicationError('The X connection has no access_token.', { retryable: false });
    const res = await platformRequest(ctx.policy, X, `${ctx.app.apiUrl}/2/users/me`, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}` },
      timeoutMs: PLATFORM_TIMEOUT_MS,
    });
    if (res.status < 200 || res.status >= 300) throw xRefusal(res);
    const me = documented(X, 'GET /2/users/me', res, Me).data;
    return { handle: `@${me.username}`, fields: { user_id: me.id, username: me.username } };
  },
};
