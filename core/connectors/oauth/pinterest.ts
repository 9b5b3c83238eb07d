// Pinterest (API v5): the authorize page on pinterest.com, the code traded at /v5/oauth/token
// with the app's id and secret as HTTP Basic, and continuous refresh tokens (60 days,
// refreshable indefinitely): every refresh answers a new refresh token, which replaces the
// old. `GET /v5/user_account` names the account; the board to pin to comes from the
// connection's `board_id`.
// Docs: pinterest/api-description v5/openapi.json (oauth/token, user_account/get),
// developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/.
import { z } from 'zod';
import { documented } from '../http.ts';
import type { OAuthApp, OAuthContext, OAuthTokens } from '../oauthApp.ts';
import {
  accessTokenOf,
  cannotRefresh,
  clientOf,
  expiresAt,
  form,
  Seconds,
  sameAccount,
  send,
  Token,
  tokens,
} from './grants.ts';

const PLATFORM = 'Pinterest';
/** Reading boards and Pins, creating Pins, and the account (its analytics need it too). */
const SCOPES = ['boards:read', 'pins:read', 'pins:write', 'user_accounts:read'];
const TOKEN_PATH = '/v5/oauth/token';

/** OauthAccessTokenResponse (Code and Refresh): a refresh answers a new refresh token. */
const TokenAnswer = z.object({
  access_token: Token,
  expires_in: Seconds,
  scope: z.string().max(2000),
  refresh_token: Token.optional(),
  refresh_token_expires_in: Seconds.optional(),
});
/** Account (GET /v5/user_account): the username. */
const UserAccount = z.object({ username: z.string().regex(/^[\w.-]{1,100}$/) });

async function tokenRequest(
  ctx: OAuthContext,
  fields: Record<string, string>,
  secrets: (string | undefined)[],
  refreshing: boolean,
) {
  const client = clientOf(ctx, PLATFORM);
  const basic = Buffer.from(`${client.id}:${client.secret}`).toString('base64');
  const body = form(fields);
  const res = await send({
    ctx,
    platform: PLATFORM,
    method: 'POST',
    url: `${ctx.app.apiUrl}${TOKEN_PATH}`,
    headers: { ...body.headers, authorization: `Basic ${basic}` },
    body: body.body,
    secrets: [...secrets, client.secret, basic],
    reconnectOnRefusal: refreshing,
  });
  return documented(PLATFORM, `POST ${TOKEN_PATH}`, res, TokenAnswer);
}

export const pinterestOAuthApp: OAuthApp = {
  platform: 'pinterest',
  scopes: SCOPES,
  // Pinterest's documented flow authenticates the app with its secret (HTTP Basic); no PKCE.
  pkce: false,

  authorizeUrl(app, flow) {
    const query = new URLSearchParams({
      client_id: app.clientId ?? '',
      redirect_uri: flow.redirectUri,
      response_type: 'code',
      scope: SCOPES.join(','),
      state: flow.state,
    });
    return `${app.authorizeUrl}?${query.toString()}`;
  },

  async exchangeCode(ctx, flow) {
    const answer = await tokenRequest(
      ctx,
      {
        grant_type: 'authorization_code',
        code: flow.code,
        redirect_uri: flow.redirectUri,
        // Apps made before 25 September 2025 get continuous refresh tokens only when they ask.
        continuous_refresh: 'true',
      },
      [flow.code],
      false,
    );
    return tokens({
      access_token: answer.access_token,
      refresh_token: answer.refresh_token,
      expires_at: expiresAt(answer.expires_in),
      refresh_expires_at: expiresAt(answer.refresh_token_expires_in),
      scope: answer.scope,
    });
  },

  async refresh(ctx, current): Promise<OAuthTokens> {
    if (!current.refresh_token) throw cannotRefresh(PLATFORM, 'no refresh token is stored');
    const answer = await tokenRequest(
      ctx,
      { grant_type: 'refresh_token', refresh_token: current.refresh_token },
      [current.refresh_token, current.access_token],
      true,
    );
    return tokens({
      access_token: answer.access_token,
      // The new refresh token replaces the old; an answer without one leaves the old as it was.
      refresh_token: answer.refresh_token ?? current.refresh_token,
      expires_at: expiresAt(answer.expires_in),
      refresh_expires_at: answer.refresh_token
        ? expiresAt(answer.refresh_token_expires_in)
        : current.refresh_expires_at,
      scope: answer.scope,
    });
  },

  async identify(ctx, credentials) {
    const token = accessTokenOf(credentials, PLATFORM);
    const path = '/v5/user_account';
    const res = await send({
      ctx,
      platform: PLATFORM,
      method: 'GET',
      url: `${ctx.app.apiUrl}${path}`,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      secrets: [token],
      reconnectOnRefusal: false,
    });
    const account = documented(PLATFORM, `GET ${path}`, res, UserAccount);
    sameAccount(PLATFORM, 'username', credentials, account.username);
    return { handle: account.username, fields: { username: account.username } };
  },
};
