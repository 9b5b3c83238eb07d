// LinkedIn's OAuth 2 app: the authorization code flow with the operator's client secret (no
// PKCE), tokens at {LINKEDIN_OAUTH_URL}/oauth/v2/accessToken, and the member named by OpenID
// Connect's userinfo. Access tokens last 60 days; refresh tokens are issued to approved
// partners only, so most connections cannot be refreshed and are reconnected instead.
// Docs: learn.microsoft.com/linkedin/shared/authentication/authorization-code-flow,
// .../programmatic-refresh-tokens, .../sign-in-with-linkedin-v2.
import { z } from 'zod';
import { PublicationError } from '../connector.ts';
import {
  documented,
  PLATFORM_TIMEOUT_MS,
  type PlatformResponse,
  platformRequest,
} from '../http.ts';
import { linkedinRefusal, reasonOf, VERSION_HEADERS } from '../linkedin/api.ts';
import type { OAuthApp, OAuthContext, OAuthTokens } from '../oauthApp.ts';
import { plainText } from '../readings.ts';
import { Seconds } from './grants.ts';

/**
 * Posting as the member and naming them. Posting as a Page also needs `w_organization_social`
 * (docs/platforms.md says how an operator adds it).
 */
export const LINKEDIN_SCOPES = ['openid', 'profile', 'w_member_social'] as const;

/** The token endpoint's answer (exchange and refresh). */
const TokenAnswer = z.object({
  access_token: z.string().min(1).max(4000),
  expires_in: Seconds.optional(),
  refresh_token: z.string().min(1).max(4000).optional(),
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

const at = (seconds: number | undefined, now: number) =>
  seconds === undefined ? undefined : new Date(now + seconds * 1000).toISOString();

function clientOf(ctx: OAuthContext) {
  const { clientId, clientSecret, clientVars } = ctx.app;
  if (!clientId || !clientSecret)
    throw new PublicationError(
      `LinkedIn's app credentials are not set: an operator sets ${clientVars.join(' and ')}.`,
      { retryable: false },
    );
  return { client_id: clientId, client_secret: clientSecret };
}

/** POSTs a grant to the token endpoint; answers the tokens it gives. */
async function token(
  ctx: OAuthContext,
  grant: Record<string, string>,
  refused: (res: PlatformResponse) => PublicationError,
): Promise<OAuthTokens> {
  const now = Date.now();
  const res = await platformRequest(
    ctx.policy,
    'LinkedIn',
    `${ctx.app.oauthUrl}/oauth/v2/accessToken`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ ...grant, ...clientOf(ctx) }).toString(),
      timeoutMs: PLATFORM_TIMEOUT_MS,
    },
  );
  if (res.status < 200 || res.status >= 300) throw refused(res);
  const t = documented('LinkedIn', 'POST /oauth/v2/accessToken', res, TokenAnswer);
  return {
    access_token: t.access_token,
    ...(t.refresh_token ? { refresh_token: t.refresh_token } : {}),
    ...(t.expires_in ? { expires_at: at(t.expires_in, now) } : {}),
    ...(t.refresh_token_expires_in
      ? { refresh_expires_at: at(t.refresh_token_expires_in, now) }
      : {}),
    ...(t.scope ? { scope: t.scope } : {}),
  };
}

const reconnect = (message: string) =>
  new PublicationError(message, { retryable: false, reconnect: true });

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
    return token(
      ctx,
      { grant_type: 'authorization_code', code: flow.code, redirect_uri: flow.redirectUri },
      (res) =>
        res.status >= 500 || res.status === 429
          ? linkedinRefusal(res)
          : new PublicationError(
              `LinkedIn did not accept the authorization code (${res.status}: ${plainText(reasonOf(res)).slice(0, 300)}); connect again.`,
              { retryable: false, status: res.status },
            ),
    );
  },

  async refresh(ctx, tokens) {
    if (!tokens.refresh_token)
      throw reconnect(
        "LinkedIn's access token lasts 60 days and this connection has no refresh token " +
          '(LinkedIn gives them to approved partners only): reconnect the account.',
      );
    if (tokens.refresh_expires_at && Date.parse(tokens.refresh_expires_at) <= Date.now())
      throw reconnect(
        "The LinkedIn connection's refresh token has expired: reconnect the account.",
      );
    const fresh = await token(
      ctx,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      // 400 (invalid_request, invalid_grant) and 401: the refresh token is dead.
      (res) =>
        res.status >= 500 || res.status === 429
          ? linkedinRefusal(res)
          : reconnect(
              `LinkedIn refused to refresh the connection (${res.status}: ${plainText(reasonOf(res)).slice(0, 300)}): reconnect the account.`,
            ),
    );
    // A refresh does not extend the refresh token's life; keep what is known of it.
    return {
      ...fresh,
      refresh_token: fresh.refresh_token ?? tokens.refresh_token,
      ...(fresh.refresh_expires_at || tokens.refresh_expires_at
        ? { refresh_expires_at: fresh.refresh_expires_at ?? tokens.refresh_expires_at }
        : {}),
    };
  },

  async identify(ctx, credentials) {
    const access = credentials.access_token;
    if (typeof access !== 'string' || !access)
      throw new PublicationError('A LinkedIn connection needs an access_token.', {
        retryable: false,
      });
    const res = await platformRequest(ctx.policy, 'LinkedIn', `${ctx.app.apiUrl}/v2/userinfo`, {
      method: 'GET',
      headers: { ...VERSION_HEADERS, authorization: `Bearer ${access}` },
      timeoutMs: PLATFORM_TIMEOUT_MS,
    });
    if (res.status < 200 || res.status >= 300) throw linkedinRefusal(res);
    const me = documented('LinkedIn', 'GET /v2/userinfo', res, UserInfo);
    const name =
      plainText(me.name ?? '') ||
      plainText([me.given_name, me.family_name].filter(Boolean).join(' '));
    return { handle: name.slice(0, 100) || me.sub, fields: { sub: me.sub } };
  },
};
