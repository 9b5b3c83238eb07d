// Instagram (Instagram API with Instagram Login): the authorize page on instagram.com, the code
// (without the `#_` Instagram appends to it) traded on api.instagram.com for a short-lived
// token, at once exchanged on graph.instagram.com for a 60-day one (ig_exchange_token) and
// extended with ig_refresh_token before it dies; `/me` names the professional account and the
// user id publishing posts as.
// Docs: developers.facebook.com/documentation/instagram-platform/instagram-api-with-instagram-login/business-login,
// …/instagram-platform/reference/oauth-authorize, …/reference/access_token,
// …/reference/refresh_access_token, …/instagram-api-with-instagram-login/get-started.

import { z } from 'zod';
import { PLATFORM_NAMES } from '../../kernel/platformNames.ts';
import { documented } from '../http.ts';
import { GRAPH_VERSION } from '../meta/graph.ts';
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

const PLATFORM = PLATFORM_NAMES.instagram;
/** Publishing, the profile, and reading a post's insights (views, reach, likes...). */
const SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_insights',
];

/**
 * POST /oauth/access_token: the business-login page documents `{data: [{access_token,
 * user_id, permissions}]}`, the older reference a flat `{access_token, user_id}`; both are read.
 */
const ShortToken = z.object({ access_token: Token });
const ShortLived = z.union([
  z.object({ data: z.tuple([ShortToken], z.unknown()) }).transform((a) => a.data[0]),
  ShortToken,
]);
/** GET /{version}/me?fields=user_id,username: `user_id` is the professional account's id. */
const Me = z.object({ user_id: NumericId, username: z.string().regex(/^[\w.]{1,100}$/) });

export const instagramOAuthApp: OAuthApp = {
  platform: 'instagram',
  scopes: SCOPES,
  // Instagram's authorize page takes no PKCE challenge (not in its documented parameters).
  pkce: false,

  authorizeUrl(app, flow) {
    return withQuery(app.authorizeUrl, {
      client_id: app.clientId ?? '',
      redirect_uri: flow.redirectUri,
      response_type: 'code',
      scope: SCOPES.join(','),
      state: flow.state,
    });
  },

  async exchangeCode(ctx, flow) {
    const client = clientOf(ctx, PLATFORM);
    // Instagram appends `#_` to the code in the redirect; a browser drops the fragment, but
    // a code pasted by hand may carry it.
    const code = flow.code.replace(/#_$/, '');
    const res = await send({
      ctx,
      platform: PLATFORM,
      method: 'POST',
      url: `${ctx.app.oauthUrl}/oauth/access_token`,
      ...form({
        client_id: client.id,
        client_secret: client.secret,
        grant_type: 'authorization_code',
        redirect_uri: flow.redirectUri,
        code,
      }),
      secrets: [client.secret, code],
      reconnectOnRefusal: false,
    });
    const short = documented(PLATFORM, 'POST /oauth/access_token', res, ShortLived);
    return longLivedToken(
      ctx,
      PLATFORM,
      '/access_token',
      {
        grant_type: 'ig_exchange_token',
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
      { grant_type: 'ig_refresh_token', access_token: tokens.access_token },
      true,
    );
  },

  async identify(ctx, credentials) {
    const token = accessTokenOf(credentials, PLATFORM);
    const path = `/${GRAPH_VERSION}/me`;
    const res = await send({
      ctx,
      platform: PLATFORM,
      method: 'GET',
      url: withQuery(`${ctx.app.apiUrl}${path}`, {
        fields: 'user_id,username',
        access_token: token,
      }),
      headers: { accept: 'application/json' },
      secrets: [token],
      reconnectOnRefusal: false,
    });
    const me = documented(PLATFORM, `GET ${path}`, res, Me);
    sameAccount(PLATFORM, 'user_id', credentials, me.user_id);
    return { handle: `@${me.username}`, fields: { user_id: me.user_id } };
  },
};
