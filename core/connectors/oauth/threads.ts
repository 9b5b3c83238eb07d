// Threads (Meta): the authorize page on threads.com, the code traded on graph.threads.net for
// a short-lived token and at once for a 60-day one (th_exchange_token), extended with
// th_refresh_token before it dies; `/v1.0/me` names the account and its user id.
// Docs: developers.facebook.com/documentation/threads/get-started/get-access-tokens-and-permissions,
// …/threads/get-started/long-lived-tokens, …/threads/threads-profiles.

import { z } from 'zod';
import { PLATFORM_NAMES } from '../../kernel/platformNames.ts';
import { documented } from '../http.ts';
import type { OAuthApp } from '../oauthApp.ts';
import {
  accessTokenOf,
  cannotRefresh,
  clientOf,
  form,
  NumericId,
  sameAccount,
  send,
  Token,
  withQuery,
} from './grants.ts';
import { longLivedToken, tooYoungToExtend } from './metaTokens.ts';

const PLATFORM = PLATFORM_NAMES.threads;
/**
 * Publishing, the profile, reading a post's insights (views, likes, replies...), and reading
 * the account's own replies (a thread's later parts, read back after a crash).
 */
const SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_insights',
  'threads_read_replies',
];

/** POST /oauth/access_token: the short-lived token (its `user_id` is read from /me instead). */
const ShortLived = z.object({ access_token: Token });
/** GET /v1.0/me?fields=id,username. */
const Me = z.object({ id: NumericId, username: z.string().regex(/^[\w.]{1,100}$/) });

export const threadsOAuthApp: OAuthApp = {
  platform: 'threads',
  scopes: SCOPES,
  // Threads' authorize page takes no PKCE challenge (not in its documented parameters).
  pkce: false,

  authorizeUrl(app, flow) {
    return withQuery(app.authorizeUrl, {
      client_id: app.clientId ?? '',
      redirect_uri: flow.redirectUri,
      scope: SCOPES.join(','),
      response_type: 'code',
      state: flow.state,
    });
  },

  async exchangeCode(ctx, flow) {
    const client = clientOf(ctx, PLATFORM);
    const res = await send({
      ctx,
      platform: PLATFORM,
      method: 'POST',
      url: `${ctx.app.apiUrl}/oauth/access_token`,
      ...form({
        client_id: client.id,
        client_secret: client.secret,
        grant_type: 'authorization_code',
        redirect_uri: flow.redirectUri,
        code: flow.code,
      }),
      secrets: [client.secret, flow.code],
      reconnectOnRefusal: false,
    });
    const short = documented(PLATFORM, 'POST /oauth/access_token', res, ShortLived);
    return longLivedToken(
      ctx,
      PLATFORM,
      '/access_token',
      {
        grant_type: 'th_exchange_token',
        client_secret: client.secret,
        access_token: short.access_token,
      },
      false,
    );
  },

  async refresh(ctx, tokens) {
    if (!tokens.access_token) throw cannotRefresh(PLATFORM, 'no long-lived token is stored');
    if (tooYoungToExtend(tokens)) return tokens;
    return longLivedToken(
      ctx,
      PLATFORM,
      '/refresh_access_token',
      { grant_type: 'th_refresh_token', access_token: tokens.access_token },
      true,
    );
  },

  async identify(ctx, credentials) {
    const token = accessTokenOf(credentials, PLATFORM);
    const res = await send({
      ctx,
      platform: PLATFORM,
      method: 'GET',
      url: withQuery(`${ctx.app.apiUrl}/v1.0/me`, { fields: 'id,username', access_token: token }),
      headers: { accept: 'application/json' },
      secrets: [token],
      reconnectOnRefusal: false,
    });
    const me = documented(PLATFORM, 'GET /v1.0/me', res, Me);
    sameAccount(PLATFORM, 'user_id', credentials, me.id);
    return { handle: `@${me.username}`, fields: { user_id: me.id } };
  },
};
