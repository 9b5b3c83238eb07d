// A stand-in for Pinterest's OAuth token endpoint and GET /v5/user_account on loopback,
// written from Pinterest's OpenAPI description (pinterest/api-description, excerpt in
// pinterestOpenapi.json): POST /v5/oauth/token with the app's id and secret as HTTP Basic and
// a form body; continuous refresh tokens (60 days), each refresh answering a new one that
// replaces the old; errors as `{code, message}`. Every form it is sent is checked against the
// published request schema, and every answer it gives against the published response schema,
// so a field misread in both the app and this stand-in still fails.
import { Ajv } from 'ajv';
import spec from './pinterestOpenapi.json' with { type: 'json' };
import {
  json,
  type Received,
  type StandIn,
  startStandIn,
  type TokenBook,
  tokenBook,
} from './standIn.ts';

export const PINTEREST_APP = { id: '1500001', secret: 'pinterest-app-secret-01' };
const ACCESS_S = 2_592_000;
const REFRESH_S = 5_184_000;

const ajv = new Ajv({ strict: false, allErrors: true });
const check = (name: keyof typeof spec.schemas) => ajv.compile(spec.schemas[name]);
const requestCode = check('OauthAccessTokenRequestCode');
const requestRefresh = check('OauthAccessTokenRequestRefresh');
const responseCode = check('OauthAccessTokenResponseCode');
const responseRefresh = check('OauthAccessTokenResponseRefresh');
const account = check('Account');

export type PinterestStandIn = StandIn &
  Omit<TokenBook, 'codes' | 'newAccess'> & {
    /** Requests or answers that did not fit the published schemas (the test expects none). */
    misfits: string[];
  };

export async function startPinterestOauth(redirectUri: string): Promise<PinterestStandIn> {
  const book = tokenBook({ code: 'pcode', access: 'pina_', refresh: 'pinr_' });
  const { codes, access, refresh, pair } = book;
  const misfits: string[] = [];
  const fits = (what: string, validate: ReturnType<typeof check>, value: unknown) => {
    if (!validate(value)) misfits.push(`${what}: ${ajv.errorsText(validate.errors)}`);
  };
  const answer = (what: string, validate: ReturnType<typeof check>, body: unknown) => {
    fits(what, validate, body);
    return json(200, body);
  };
  const tokens = (user: string, responseType: 'authorization_code' | 'refresh_token') => ({
    ...pair(user),
    response_type: responseType,
    token_type: 'bearer',
    expires_in: ACCESS_S,
    refresh_token_expires_in: REFRESH_S,
    refresh_token_expires_at: Math.floor(Date.now() / 1000) + REFRESH_S,
    scope: 'boards:read,pins:read,pins:write,user_accounts:read',
  });
  const basic = `Basic ${Buffer.from(`${PINTEREST_APP.id}:${PINTEREST_APP.secret}`).toString('base64')}`;

  const route = (r: Received) => {
    if (r.method === 'POST' && r.path === '/v5/oauth/token') {
      if (r.headers.authorization !== basic)
        return json(401, { code: 2, message: 'Authentication failed.' });
      const f = r.form;
      if (f.grant_type === 'authorization_code') {
        fits('POST /v5/oauth/token (authorization_code)', requestCode, f);
        const user = f.code ? codes.get(f.code) : undefined;
        if (!user || f.redirect_uri !== redirectUri)
          return json(400, { code: 1, message: 'Invalid authorization code.' });
        codes.delete(f.code!);
        return answer('its answer', responseCode, tokens(user, 'authorization_code'));
      }
      if (f.grant_type === 'refresh_token') {
        fits('POST /v5/oauth/token (refresh_token)', requestRefresh, f);
        const user = f.refresh_token ? refresh.get(f.refresh_token) : undefined;
        if (!user) return json(400, { code: 1, message: 'Invalid refresh token.' });
        refresh.delete(f.refresh_token!);
        return answer('its answer', responseRefresh, tokens(user, 'refresh_token'));
      }
      return json(400, { code: 1, message: 'Invalid grant_type.' });
    }
    if (r.method === 'GET' && r.path === '/v5/user_account') {
      const token = /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ''))?.[1];
      const user = token ? access.get(token) : undefined;
      if (!user) return json(401, { code: 2, message: 'Authentication failed.' });
      return answer('GET /v5/user_account', account, {
        account_type: 'BUSINESS',
        id: user === 'brand' ? '2783136121146311751' : '2783136121146311752',
        username: user === 'brand' ? 'brandstudio' : 'someoneelse',
        business_name: 'Brand Studio',
        board_count: 14,
        pin_count: 339,
        follower_count: 10,
        following_count: 347,
        monthly_views: 163,
      });
    }
    return undefined;
  };

  const standIn = await startStandIn(route);
  return {
    ...standIn,
    access,
    refresh,
    misfits,
    issueCode: book.issueCode,
    pair,
    revoke: book.revoke,
  };
}
