// A stand-in for TikTok's OAuth (Login Kit for Web, user access token management) and its user
// info endpoint on loopback, written from TikTok's pages: the code traded by a form POST to
// /v2/oauth/token/ with the app's client_key and secret; access tokens of 2 hours; refresh
// tokens that rotate (the pages of November 2026: the old one stops working once a new one
// is issued); token errors as a body `{error, error_description, log_id}`; GET
// /v2/user/info/ answering `{data: {user}, error: {code: "ok"}}`, or 401
// `access_token_invalid`.
import {
  json,
  type Received,
  type StandIn,
  startStandIn,
  type TokenBook,
  tokenBook,
} from './standIn.ts';

export const TIKTOK_APP = { id: 'awtiktokclientkey01', secret: 'tiktok-client-secret-01' };
const ACCESS_S = 7_200;
const REFRESH_S = 15_552_000;

export type TikTokStandIn = StandIn & Omit<TokenBook, 'codes' | 'newAccess'>;

const USERS: Record<string, { open_id: string; display_name: string }> = {
  brand: { open_id: '-000Brand1OpenId', display_name: 'Brand Studio' },
  other: { open_id: '-000Other2OpenId', display_name: 'Someone Else' },
};

/** TikTok's documented token error, in the body. */
const tokenError = (error: string, description: string) =>
  json(200, { error, error_description: description, log_id: '20261129083000A1B2C3' });

export async function startTikTokOauth(redirectUri: string): Promise<TikTokStandIn> {
  const book = tokenBook({ code: 'code.', access: 'act.', refresh: 'rft.' });
  const { codes, access, refresh, pair } = book;
  const tokens = (user: string) => ({
    ...pair(user),
    expires_in: ACCESS_S,
    open_id: USERS[user]!.open_id,
    refresh_expires_in: REFRESH_S,
    scope: 'user.info.basic,video.publish,video.list',
    token_type: 'Bearer',
  });

  const route = (r: Received) => {
    if (r.method === 'POST' && r.path === '/v2/oauth/token/') {
      if (!String(r.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
        return tokenError('invalid_request', 'The request parameters are malformed.');
      const f = r.form;
      if (f.client_key !== TIKTOK_APP.id || f.client_secret !== TIKTOK_APP.secret)
        return tokenError('invalid_client', 'Client key or secret is incorrect.');
      if (f.grant_type === 'authorization_code') {
        const user = f.code ? codes.get(f.code) : undefined;
        if (!user || f.redirect_uri !== redirectUri)
          return tokenError('invalid_grant', 'Authorization code is expired.');
        codes.delete(f.code!);
        return json(200, tokens(user));
      }
      if (f.grant_type === 'refresh_token') {
        const user = f.refresh_token ? refresh.get(f.refresh_token) : undefined;
        if (!user) return tokenError('invalid_grant', 'Refresh token is invalid or expired.');
        // Rotation: the refresh token just spent is dead from now on.
        refresh.delete(f.refresh_token!);
        return json(200, tokens(user));
      }
      return tokenError('unsupported_grant_type', 'The grant type is not supported.');
    }
    if (r.method === 'GET' && r.path === '/v2/user/info/') {
      const token = /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ''))?.[1];
      const user = token ? access.get(token) : undefined;
      if (!user)
        return json(401, {
          data: {},
          error: {
            code: 'access_token_invalid',
            message: 'The access token is invalid or not found in the request.',
            log_id: '20261129083000A1B2C4',
          },
        });
      const fields = (r.query.fields ?? '').split(',');
      const all = { ...USERS[user]!, union_id: 'union-1', avatar_url: 'https://p16.example/a.jpg' };
      return json(200, {
        data: { user: Object.fromEntries(Object.entries(all).filter(([k]) => fields.includes(k))) },
        error: { code: 'ok', message: '', log_id: '20261129083000A1B2C5' },
      });
    }
    return undefined;
  };

  const standIn = await startStandIn(route);
  return {
    ...standIn,
    access,
    refresh,
    issueCode: book.issueCode,
    pair,
    revoke: book.revoke,
  };
}
