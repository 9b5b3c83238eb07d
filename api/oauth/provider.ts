// The OAuth authorization server: oidc-provider, a certified and maintained
// implementation, configured for MCP clients (the MCP authorization specification): dynamic
// client registration, authorization code with PKCE (S256 only), resource indicators (every
// token is for `{base_url}/mcp`, opaque, and refused for another audience), rotated refresh
// tokens (a reused one revokes its whole grant), revocation, and Client ID Metadata Documents
// fetched through the outbound guard. Its state is in Postgres (core/oauth/adapter.ts); the
// consent page is the dashboard's (./consent.ts). Every authorization asks for consent: the
// provider's own session never stands in for the dashboard's.
import { createHmac } from 'node:crypto';
import Provider, { type Configuration, errors, type JWK } from 'oidc-provider';
import type { Queryable } from '../../core/db/pool.ts';
import { SCOPES } from '../../core/kernel/plans.ts';
import type { SigningKey } from '../../core/oauth/service.ts';
import { postgresAdapter, resourceOf } from '../../core/oauth/service.ts';
import { type OutboundPolicy, resolveChecked, sendChecked } from '../../core/outbound/guard.ts';

/** Where the provider's own endpoints are, under /oauth (those of features left off too). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/session/end',
} as const;

/** The consent page for an interaction (the dashboard serves it). */
export const consentPath = (uid: string) => `/oauth/consent/${uid}`;

export const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 86_400;
/** A Client ID Metadata Document is at most this big (it is a small JSON object). */
const MAX_METADATA_BYTES = 64 * 1024;

/** oidc-provider's fetch (Client ID Metadata Documents) through our outbound guard, capped. */
export function guardedFetch(policy: OutboundPolicy) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const target = await resolveChecked(String(url), policy);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const res = await sendChecked(target, {
      method: init?.method ?? 'GET',
      headers,
      timeoutMs: 2500,
      maxResponseBytes: MAX_METADATA_BYTES,
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers))
      if (typeof v === 'string') out.set(k, v);
      else if (Array.isArray(v)) for (const one of v) out.append(k, one);
    return new Response(
      res.status >= 200 && res.status !== 204 && res.status !== 304
        ? new Uint8Array(res.body)
        : null,
      {
        status: res.status,
        headers: out,
      },
    );
  };
}

export type OAuthDeps = {
  db: Queryable;
  publicBaseUrl: string;
  /** Signs the provider's cookies (derived from the session secret). */
  cookieSecret: string;
  /** Private JWKs, the first signs; older ones stay to verify what they signed (core/oauth/keys.ts). */
  signingKeys: SigningKey[];
  outbound: OutboundPolicy;
  /** TRUST_PROXY is set: believe the proxy's X-Forwarded-Proto (secure cookies behind TLS). */
  behindProxy: boolean;
};

export function createOAuthProvider(deps: OAuthDeps): Provider {
  const resource = resourceOf(deps.publicBaseUrl);
  const configuration: Configuration = {
    adapter: postgresAdapter(deps.db),
    jwks: { keys: deps.signingKeys as unknown as JWK[] },
    cookies: {
      keys: [createHmac('sha256', deps.cookieSecret).update('oauth-cookies').digest('base64url')],
    },
    routes: OAUTH_ROUTES,
    // The subject is the account id; the provider issues no ID token without `openid`.
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: async (_ctx, interaction) => consentPath(interaction.uid) },
    // Our scopes are listed, so a client may register with them (MCP clients register the
    // resource's scopes_supported); what a token carries is the resource's granted scopes.
    // No openid: this server issues no ID tokens.
    scopes: [...SCOPES],
    responseTypes: ['code'],
    // Only the grant the consent page just made counts, never one of an earlier sign-in: each
    // authorization goes to the consent page, which needs the dashboard's session (signing
    // out there leaves nothing for the provider's own session to reuse).
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // The key is Ed25519 (core/oauth/keys.ts); the provider's default would be RS256.
      id_token_signed_response_alg: 'EdDSA',
    },
    // MCP clients ask for refresh tokens by registering the grant type, not offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Tokens live with their grant (revoked from Apps), never with the provider's own session,
    // which another person signing in through the same browser would replace.
    expiresWithSession: async () => false,
    pkce: { required: () => true },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: REFRESH_TOKEN_TTL_S,
      Interaction: 3600,
      // The provider's session only carries an authorization through consent (see above).
      Session: 3600,
      ClientCredentials: 600,
      IdToken: 3600,
    },
    features: {
      devInteractions: { enabled: false },
      // Off: pushed requests and sender-bound tokens, which no MCP client needs. (The
      // provider's logout page stays: it ends its own session when another person signs in
      // through the same browser, and takes no token with it, see expiresWithSession.)
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      registration: { enabled: true },
      // A client revokes its own tokens only (RFC 7009 says to ignore another's silently).
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (indicator !== resource)
            throw new errors.InvalidTarget(`this server issues tokens for ${resource} only`);
          return {
            scope: SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: ACCESS_TOKEN_TTL_S,
            accessTokenFormat: 'opaque',
          };
        },
      },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
    },
    // An authorization request that cannot go back to its client (an unknown client, a
    // redirect_uri it did not register) is answered here, to the person, as plain text.
    renderError: async (ctx, out) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `The app's sign-in request was refused: ${out.error}${out.error_description ? ` (${out.error_description})` : ''}.\nStart again from the app.`;
    },
    // A browser-based client (the MCP Inspector's UI) may call the token endpoint from the
    // origin of one of its own redirect addresses, and from nowhere else.
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    fetch: guardedFetch(deps.outbound) as unknown as Configuration['fetch'],
  };
  const provider = new Provider(deps.publicBaseUrl, configuration);
  provider.proxy = deps.behindProxy;
  return provider;
}
