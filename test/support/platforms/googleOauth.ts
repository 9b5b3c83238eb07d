// A stand-in for Google's OAuth 2.0 token endpoint (web server apps) and the YouTube Data API's
// channels.list on loopback, written from Google's pages: the code traded at POST /token
// (form) for an access token (about an hour), a refresh token and the scopes; a refresh
// answering a new access token and no refresh token (Google does not rotate them); a revoked
// or expired refresh token `400 {error: "invalid_grant"}`; channels.list?mine=true the
// user's channel, none for an account without one, 401 UNAUTHENTICATED for a bad token.
import {
  json,
  type Received,
  type StandIn,
  startStandIn,
  type TokenBook,
  tokenBook,
} from './standIn.ts';

export const GOOGLE_APP = {
  id: '1234-abc.apps.googleusercontent.com',
  secret: 'GOCSPX-google-secret-01',
};

export type GoogleStandIn = StandIn & Omit<TokenBook, 'codes' | 'newAccess'>;

const CHANNELS: Record<string, { id: string; title: string; customUrl?: string } | undefined> = {
  brand: { id: 'UCbrandstudio00000000001', title: 'Brand Studio', customUrl: '@brandstudio' },
  plain: { id: 'UCplainchannel0000000002', title: 'Plain Channel' },
  nochannel: undefined,
};

export async function startGoogleOauth(redirectUri: string): Promise<GoogleStandIn> {
  const book = tokenBook({ code: '4/0A', access: 'ya29.', refresh: '1//0g' });
  const { codes, access, refresh, newAccess, pair } = book;
  const scope =
    'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly';

  const route = (r: Received) => {
    if (r.method === 'POST' && r.path === '/token') {
      const f = r.form;
      if (f.client_id !== GOOGLE_APP.id || f.client_secret !== GOOGLE_APP.secret)
        return json(401, { error: 'invalid_client', error_description: 'Unauthorized' });
      if (f.grant_type === 'authorization_code') {
        const user = f.code ? codes.get(f.code) : undefined;
        if (!user || f.redirect_uri !== redirectUri)
          return json(400, { error: 'invalid_grant', error_description: 'Bad Request' });
        codes.delete(f.code!);
        const p = pair(user);
        return json(200, { ...p, expires_in: 3599, scope, token_type: 'Bearer' });
      }
      if (f.grant_type === 'refresh_token') {
        const user = f.refresh_token ? refresh.get(f.refresh_token) : undefined;
        if (!user)
          return json(400, {
            error: 'invalid_grant',
            error_description: 'Token has been expired or revoked.',
          });
        return json(200, {
          access_token: newAccess(user),
          expires_in: 3599,
          scope,
          token_type: 'Bearer',
        });
      }
      return json(400, {
        error: 'unsupported_grant_type',
        error_description: 'Invalid grant_type',
      });
    }
    if (r.method === 'GET' && r.path === '/youtube/v3/channels') {
      const token = /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ''))?.[1];
      const user = token ? access.get(token) : undefined;
      if (!user)
        return json(401, {
          error: {
            code: 401,
            message:
              'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
            errors: [{ message: 'Invalid Credentials', domain: 'global', reason: 'authError' }],
            status: 'UNAUTHENTICATED',
          },
        });
      if (r.query.mine !== 'true' || r.query.part !== 'snippet')
        return json(400, { error: { code: 400, message: 'No filter selected.' } });
      const c = CHANNELS[user];
      return json(200, {
        kind: 'youtube#channelListResponse',
        etag: 'etag-1',
        pageInfo: { totalResults: c ? 1 : 0, resultsPerPage: 5 },
        ...(c
          ? {
              items: [
                {
                  kind: 'youtube#channel',
                  etag: 'etag-2',
                  id: c.id,
                  snippet: {
                    title: c.title,
                    description: '',
                    ...(c.customUrl ? { customUrl: c.customUrl } : {}),
                    publishedAt: '2020-01-01T00:00:00Z',
                  },
                },
              ],
            }
          : {}),
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
