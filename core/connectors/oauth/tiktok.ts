// TikTok (Login Kit for Web, Content Posting API): the authorize page takes the app's
// `client_key`, the code is traded by a form POST to /v2/oauth/token/, and the refresh token
// rotates (TikTok's pages of November 2026: the old one stops working once a new one is
// issued), so every refresh's new one is kept. TikTok documents its token errors as a body
// (`{error, error_description, log_id}`), so one is read as a refusal whatever the status.
// Docs: developers.tiktok.com/doc/login-kit-web, …/doc/oauth-user-access-token-management,
// …/docs/en/oauth-refresh-a-user-access-token, …/doc/tiktok-api-v2-get-user-info.
import { z } from 'zod';
import { documented, type PlatformResponse } from '../http.ts';
import type { OAuthApp, OAuthContext, OAuthTokens } from '../oauthApp.ts';
import {
  accessTokenOf,
  type Call,
  cannotRefresh,
  clientOf,
  expiresAt,
  form,
  refusedIn,
  Seconds,
  ShownName,
  sameAccount,
  send,
  Token,
  tokens,
  withQuery,
} from './grants.ts';

const PLATFORM = 'TikTok';
/** The basic profile, direct posting, and the account's videos with their counts (metrics). */
const SCOPES = ['user.info.basic', 'video.publish', 'video.list'];
const TOKEN_PATH = '/v2/oauth/token/';

/** POST /v2/oauth/token/: the tokens, the user's open_id and their lifetimes. */
const TokenAnswer = z.object({
  access_token: Token,
  expires_in: Seconds,
  open_id: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.-]+$/),
  refresh_token: Token,
  refresh_expires_in: Seconds.optional(),
  scope: z.string().max(2000).optional(),
});
/** GET /v2/user/info/: `error.code` is "ok" on success. */
const UserInfo = z.object({
  data: z.object({
    user: z.object({
      open_id: z
        .string()
        .min(1)
        .max(200)
        .regex(/^[\w.-]+$/),
      display_name: ShownName,
    }),
  }),
  error: z.object({ code: z.literal('ok') }).optional(),
});

/** An answer that carries TikTok's error instead of tokens, whatever its status. */
const carriesError = (res: PlatformResponse) => {
  const json = res.json as { error?: unknown } | undefined;
  return typeof json === 'object' && json !== null && typeof json.error === 'string';
};

async function tokenRequest(
  ctx: OAuthContext,
  fields: Record<string, string>,
  secrets: string[],
  refreshing: boolean,
): Promise<OAuthTokens> {
  const call: Call = {
    ctx,
    platform: PLATFORM,
    method: 'POST',
    url: `${ctx.app.apiUrl}${TOKEN_PATH}`,
    ...form(fields),
    secrets,
    reconnectOnRefusal: refreshing,
  };
  call.headers = { ...call.headers, 'cache-control': 'no-cache' };
  const res = await send(call);
  if (carriesError(res)) throw refusedIn(call, res);
  const answer = documented(PLATFORM, `POST ${TOKEN_PATH}`, res, TokenAnswer);
  const result: OAuthTokens & { open_id: string } = {
    ...tokens({
      access_token: answer.access_token,
      refresh_token: answer.refresh_token,
      expires_at: expiresAt(answer.expires_in),
      refresh_expires_at: expiresAt(answer.refresh_expires_in),
      scope: answer.scope,
    }),
    open_id: answer.open_id,
  };
  return result;
}

export const tiktokOAuthApp: OAuthApp = {
  platform: 'tiktok',
  scopes: SCOPES,
  // TikTok requires PKCE of desktop and mobile apps only; a web app signs with its secret.
  pkce: false,

  authorizeUrl(app, flow) {
    return withQuery(app.authorizeUrl, {
      client_key: app.clientId ?? '',
      scope: SCOPES.join(','),
      redirect_uri: flow.redirectUri,
      state: flow.state,
      response_type: 'code',
    });
  },

  async exchangeCode(ctx, flow) {
    const client = clientOf(ctx, PLATFORM);
    return tokenRequest(
      ctx,
      {
        client_key: client.id,
        client_secret: client.secret,
        code: flow.code,
        grant_type: 'authorization_code',
        redirect_uri: flow.redirectUri,
      },
      [client.secret, flow.code],
      false,
    );
  },

  async refresh(ctx, current) {
    if (!current.refresh_token) throw cannotRefresh(PLATFORM, 'no refresh token is stored');
    const client = clientOf(ctx, PLATFORM);
    return tokenRequest(
      ctx,
      {
        client_key: client.id,
        client_secret: client.secret,
        grant_type: 'refresh_token',
        refresh_token: current.refresh_token,
      },
      [client.secret, current.refresh_token, current.access_token],
      true,
    );
  },

  async identify(ctx, credentials) {
    const token = accessTokenOf(credentials, PLATFORM);
    const path = '/v2/user/info/';
    const res = await send({
      ctx,
      platform: PLATFORM,
      method: 'GET',
      url: withQuery(`${ctx.app.apiUrl}${path}`, {
        fields: 'open_id,union_id,avatar_url,display_name',
      }),
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      secrets: [token],
      reconnectOnRefusal: false,
    });
    const info = documented(PLATFORM, `GET ${path}`, res, UserInfo);
    const user = info.data.user;
    sameAccount(PLATFORM, 'open_id', credentials, user.open_id);
    return { handle: user.display_name, fields: { open_id: user.open_id } };
  },
};
