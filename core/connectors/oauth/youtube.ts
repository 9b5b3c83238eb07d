// YouTube (Google's OAuth 2.0 for web server apps, YouTube Data API v3): the authorize page asks
// for offline access with consent every time (so Google issues a refresh token on each
// connect), the code is traded at the token endpoint, and a refresh answers a new access token
// only: the refresh token is kept (Google does not rotate it); `invalid_grant` (revoked,
// unused for six months, an app in Testing after seven days) asks for a reconnect. The
// channel (`channels.list?mine=true`) names the account.
// Docs: developers.google.com/identity/protocols/oauth2/web-server,
// developers.google.com/youtube/v3/docs/channels/list, …/youtube/v3/guides/auth/server-side-web-apps.
import { z } from 'zod';
import { PublicationError } from '../connector.ts';
import { documented } from '../http.ts';
import type { OAuthApp, OAuthContext, OAuthTokens } from '../oauthApp.ts';
import {
  accessTokenOf,
  cannotRefresh,
  clientOf,
  expiresAt,
  form,
  Seconds,
  ShownName,
  sameAccount,
  send,
  Token,
  tokens,
  withQuery,
} from './grants.ts';

const PLATFORM = 'YouTube';
/** Uploading videos, and reading the channel and its videos' statistics. */
const SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
];

/** POST /token: a refresh only answers the access token; the code exchange the refresh token too. */
const TokenAnswer = z.object({
  access_token: Token,
  expires_in: Seconds,
  refresh_token: Token.optional(),
  scope: z.string().max(2000).optional(),
});
const ChannelId = z.string().regex(/^UC[\w-]{22}$/);
/** GET /youtube/v3/channels?part=snippet&mine=true: the user's channel, if they have one. */
const Channels = z.object({
  items: z
    .array(
      z.object({
        id: ChannelId,
        snippet: z.object({
          title: ShownName,
          customUrl: z
            .string()
            .regex(/^@?[\w.-]{1,100}$/)
            .optional()
            .catch(undefined),
        }),
      }),
    )
    .max(50)
    .optional(),
});

async function tokenRequest(
  ctx: OAuthContext,
  fields: Record<string, string>,
  secrets: (string | undefined)[],
  refreshing: boolean,
) {
  const res = await send({
    ctx,
    platform: PLATFORM,
    method: 'POST',
    url: `${ctx.app.oauthUrl}/token`,
    ...form(fields),
    secrets,
    reconnectOnRefusal: refreshing,
  });
  return documented(PLATFORM, 'POST /token', res, TokenAnswer);
}

export const youtubeOAuthApp: OAuthApp = {
  platform: 'youtube',
  scopes: SCOPES,
  // Google's web-server flow authenticates the app with its secret; its PKCE parameters are
  // documented for installed and mobile apps.
  pkce: false,

  authorizeUrl(app, flow) {
    return withQuery(app.authorizeUrl, {
      client_id: app.clientId ?? '',
      redirect_uri: flow.redirectUri,
      response_type: 'code',
      scope: SCOPES.join(' '),
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: flow.state,
    });
  },

  async exchangeCode(ctx, flow) {
    const client = clientOf(ctx, PLATFORM);
    const answer = await tokenRequest(
      ctx,
      {
        code: flow.code,
        client_id: client.id,
        client_secret: client.secret,
        redirect_uri: flow.redirectUri,
        grant_type: 'authorization_code',
      },
      [client.secret, flow.code],
      false,
    );
    if (!answer.refresh_token)
      throw new PublicationError(
        `${PLATFORM} answered no refresh token (Google gives one with access_type=offline and ` +
          "consent): remove the app under the Google account's third-party access and connect again.",
        { retryable: false },
      );
    return tokens({
      access_token: answer.access_token,
      refresh_token: answer.refresh_token,
      expires_at: expiresAt(answer.expires_in),
      scope: answer.scope,
    });
  },

  async refresh(ctx, current): Promise<OAuthTokens> {
    if (!current.refresh_token) throw cannotRefresh(PLATFORM, 'no refresh token is stored');
    const client = clientOf(ctx, PLATFORM);
    const answer = await tokenRequest(
      ctx,
      {
        client_id: client.id,
        client_secret: client.secret,
        refresh_token: current.refresh_token,
        grant_type: 'refresh_token',
      },
      [client.secret, current.refresh_token, current.access_token],
      true,
    );
    return tokens({
      access_token: answer.access_token,
      // Google keeps the refresh token; should an answer carry one, it is the one to keep.
      refresh_token: answer.refresh_token ?? current.refresh_token,
      expires_at: expiresAt(answer.expires_in),
      scope: answer.scope ?? current.scope,
    });
  },

  async identify(ctx, credentials) {
    const token = accessTokenOf(credentials, PLATFORM);
    const path = '/youtube/v3/channels';
    const res = await send({
      ctx,
      platform: PLATFORM,
      method: 'GET',
      url: withQuery(`${ctx.app.apiUrl}${path}`, { part: 'snippet', mine: 'true' }),
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      secrets: [token],
      reconnectOnRefusal: false,
    });
    const channel = documented(PLATFORM, `GET ${path}`, res, Channels).items?.[0];
    if (!channel)
      throw new PublicationError(
        `${PLATFORM} has no channel for this Google account: create one on YouTube, then connect again.`,
        { retryable: false },
      );
    sameAccount(PLATFORM, 'channel_id', credentials, channel.id);
    const custom = channel.snippet.customUrl;
    return {
      handle: custom ? (custom.startsWith('@') ? custom : `@${custom}`) : channel.snippet.title,
      fields: { channel_id: channel.id, channel_title: channel.snippet.title },
    };
  },
};
