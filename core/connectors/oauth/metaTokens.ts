// Meta's long-lived tokens, as Threads and Instagram (Instagram Login) issue them: the code
// gives a short-lived token (1 h), exchanged at once for a 60-day one; there is no refresh
// token, the long-lived token is extended itself (allowed once it is a day old and until it
// expires, each extension valid 60 days from then).
import { z } from 'zod';
import { documented } from '../http.ts';
import type { OAuthContext, OAuthTokens } from '../oauthApp.ts';
import { expiresAt, Seconds, send, Token, tokens, withQuery } from './grants.ts';

/** What Meta documents for a long-lived token's `expires_in` (about 60 days). */
const LONG_LIVED_SECONDS = 5_183_944;

/**
 * Whether a long-lived token is under a day old (its expiry more than 59 days away): Meta
 * refuses to extend it then, which is no reason to reconnect, so it is kept as it is.
 */
export const tooYoungToExtend = (t: OAuthTokens, now = Date.now()) =>
  t.expires_at !== undefined &&
  Date.parse(t.expires_at) - now > (LONG_LIVED_SECONDS - 86_400) * 1000;

/** GET /access_token and GET /refresh_access_token answer `{access_token, token_type, expires_in}`. */
const LongLivedAnswer = z.object({ access_token: Token, expires_in: Seconds.optional() });

/**
 * The long-lived token of one GET (`path` with `query`): `access_token` is the token to
 * exchange or extend, `client_secret` the app's where the call takes it. `refreshing`: a
 * refusal means the stored token is dead (a reconnect), not a failed connect.
 */
export async function longLivedToken(
  ctx: OAuthContext,
  platform: string,
  path: string,
  query: Record<string, string>,
  refreshing: boolean,
): Promise<OAuthTokens> {
  const what = `GET ${path}`;
  const res = await send({
    ctx,
    platform,
    method: 'GET',
    url: withQuery(`${ctx.app.apiUrl}${path}`, query),
    headers: { accept: 'application/json' },
    secrets: [query.access_token, query.client_secret],
    reconnectOnRefusal: refreshing,
  });
  const answer = documented(platform, what, res, LongLivedAnswer);
  return tokens({
    access_token: answer.access_token,
    // Meta documents 60 days; an answer without it is taken at its word on the lifetime.
    expires_at: expiresAt(answer.expires_in ?? LONG_LIVED_SECONDS),
  });
}
