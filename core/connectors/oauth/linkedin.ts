// LinkedIn's OAuth 2 app: the authorization code flow with the operator's client secret (no
// PKCE), tokens at {LINKEDIN_OAUTH_URL}/oauth/v2/accessToken, and the member named by OpenID
// Connect's userinfo. Access tokens last 60 days; refresh tokens are issued to approved
// partners only, so most connections cannot be refreshed and are reconnected instead.
// Docs: learn.microsoft.com/linkedin/shared/authentication/authorization-code-flow,
// .../programmatic-refresh-tokens, .../sign-in-with-linkedin-v2.
import { z } from 'zod';
import { PublicationError } from '../connector.ts';
import { documented, nextMidnightUtc, PLATFORM_TIMEOUT_MS, platformRequest } from '../http.ts';
import { linkedinRefusal, PLATFORM, VERSION_HEADERS } from '../linkedin/api.ts';
import type { OAuthApp, OAuthContext, OAuthTokens } from '../oauthApp.ts';
import { plainText } from '../readings.ts';
import {
  cannotRefresh,
  clientOf,
  expiresAt,
  form,
  Seconds,
  send,
  Token,
  tokens,
} from './grants.ts';

/**
 * Posting as the member and naming them. Posting as a Page also needs `w_organization_social`
 * (docs/platforms.md says how an operator adds it).
 */
export const LINKEDIN_SCOPES = ['openid', 'profile', 'w_member_social'] as const;

const TOKEN_PATH = '/oauth/v2/accessToken';

/** The token endpoint's answer (exchange and refresh). */
const TokenAnswer = z.object({
  access_token: Token,
  expires_in: Seconds.optional(),
  refresh_token: Token.optional(),
  refresh_token_expires_in: Seconds.optional(),
  scope: z.string().max(1000).optional(),
});
/** GET /v2/userinfo (OpenID Connect), as far as the connection keeps it. */
const UserInfo = z.object({
  sub: z.string().regex(/^[\w-]{1,100}$/),
  name: z.string().max(500).optional(),
  given_name: z.string().max(500).optional(),
  family_name: z.string().max(500).optional(),
});

/** A 429 that says nothing of when to come back waits for LinkedIn's daily reset, as the API's. */
const untilDailyReset = (err: unknown) =>
  err instanceof PublicationError &&
  err.status === 429 &&
  err.retryAt === undefined &&
  err.retryAfterMs === undefined
    ? new PublicationError(err.message, {
        retryable: true,
        retryAt: nextMidnightUtc(),
        status: 429,
        cause: err,
      })
    : err;

/**
 * POSTs a grant to the token endpoint with the client secret in the form (LinkedIn's flow has
 * no PKCE and no Basic auth); answers the tokens it gives. A refused refresh asks for a
 * reconnect (400 invalid_request or invalid_grant, 401: the refresh token is dead).
 */
async function tokenRequest(
  ctx: OAuthContext,
  grant: Record<string, string>,
  refreshing: boolean,
): Promise<OAuthTokens> {
  const client = clientOf(ctx, PLATFORM);
  const now = Date.now();
  const res = await send({
    ctx,
    platform: PLATFORM,
    method: 'POST',
    url: `${ctx.app.oauthUrl}${TOKEN_PATH}`,
    ...form({ ...grant, client_id: client.id, client_secret: client.secret }),
    secrets: [grant.code, grant.refresh_token, client.secret],
    reconnectOnRefusal: refreshing,
  }).catch((err: unknown) => {
    throw untilDailyReset(err);
  });
  const t = documented(PLATFORM, `POST ${TOKEN_PATH}`, res, TokenAnswer);
  return tokens({
    access_token: t.access_token,
    refresh_token: t.refresh_token,
    expires_at: expiresAt(t.expires_in, now),
    refresh_expires_at: expiresAt(t.refresh_token_expires_in, now),
    scope: t.scope,
  });
}

export const linkedinOAuthApp: OAuthApp = {
  platform: 'linkedin',
  scopes: LINKEDIN_SCOPES,
  pkce: false,

  authorizeUrl(app, flow) {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId ?? '',
      redirect_uri: flow.redirectUri,
      state: flow.state,
      scope: LINKEDIN_SCOPES.join(' '),
    });
    return `${app.authorizeUrl}?${query}`;
  },

  exchangeCode(ctx, flow) {
    return tokenRequest(
      ctx,
      { grant_type: 'authorization_code', code: flow.code, redirect_uri: flow.redirectUri },
      false,
    );
  },

  async refresh(ctx, current) {
    if (!current.refresh_token)
      throw cannotRefresh(
        PLATFORM,
        'its access token lasts 60 days and this connection has no refresh token (LinkedIn gives them to approved partners only)',
      );
    if (current.refresh_expires_at && Date.parse(current.refresh_expires_at) <= Date.now())
      throw cannotRefresh(PLATFORM, "the connection's refresh token has expired");
    const fresh = await tokenRequest(
      ctx,
      { grant_type: 'refresh_token', refresh_token: current.refresh_token },
      true,
    );
    // A refresh does not extend the refresh token's life; keep what is known of it.
    return tokens({
      ...fresh,
      refresh_token: fresh.refresh_token ?? current.refresh_token,
      refresh_expires_at: fresh.refresh_expires_at ?? current.refresh_expires_at,
    });
  },

  async identify(ctx, credentials) {
    const access = credentials.access_token;
    if (typeof access !== 'string' || !access)
      throw new PublicationError('A LinkedIn connection needs an access_token.', {
        retryable: false,
      });
    const res = await platformRequest(ctx.policy, PLATFORM, `${ctx.app.apiUrl}/v2/userinfo`, {
      method: 'GET',
      headers: { ...VERSION_HEADERS, authorization: `Bearer ${access}` },
      timeoutMs: PLATFORM_TIMEOUT_MS,
    });
    if (res.status < 200 || res.status >= 300) throw linkedinRefusal(res);
    const me = documented(PLATFORM, 'GET /v2/userinfo', res, UserInfo);
    const name =
      plainText(me.name ?? '') ||
      plainText([me.given_name, me.family_name].filter(Boolean).join(' '));
    return { handle: name.slice(0, 100) || me.sub, fields: { sub: me.sub } };
  },
};
