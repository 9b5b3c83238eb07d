// What the connection layer needs of each OAuth platform: its authorize page, the code
// exchange, the refresh, and the identity call that names the connected account. One
// `OAuthApp` per platform (core/connectors/oauth/); the dashboard's connect flow, the CLI's
// `connect` and the token refresh all go through these, never through a platform's URLs.
import type { OutboundPolicy } from '../outbound/guard.ts';
import type { OAuthPlatform, PlatformApp } from '../platformApps.ts';

/**
 * A connection's tokens as they are stored (sealed) in its credentials, beside the fields the
 * platform's publishing needs (`user_id`, `open_id`, `page_id`, `board_id`, `organization`...).
 */
export type OAuthTokens = {
  access_token: string;
  refresh_token?: string;
  /** When the access token expires (ISO 8601); absent when the platform does not say. */
  expires_at?: string;
  /** When the refresh token expires, where the platform says (LinkedIn, TikTok, Pinterest). */
  refresh_expires_at?: string;
  scope?: string;
};

/** The account that a set of tokens acts as. */
export type ConnectedIdentity = {
  /** Shown on the Accounts page and in list_accounts (`@username`, a name, a Page's name). */
  handle: string;
  /** The ids publishing needs, kept with the tokens (X `user_id`, LinkedIn `sub`...). */
  fields: Record<string, string>;
};

export type OAuthContext = {
  app: PlatformApp;
  policy: OutboundPolicy;
  signal?: AbortSignal;
};

export type OAuthApp = {
  platform: OAuthPlatform;
  /** The scopes the connect flow asks for (publishing, identity, refresh, reading metrics). */
  scopes: readonly string[];
  /** Whether the authorize request carries a PKCE S256 challenge. */
  pkce: boolean;
  /** The authorize page's address for one flow. */
  authorizeUrl(
    app: PlatformApp,
    flow: { state: string; redirectUri: string; codeChallenge?: string },
  ): string;
  /** The callback's code traded for tokens (for Meta, then for a long-lived token). */
  exchangeCode(
    ctx: OAuthContext,
    flow: { code: string; redirectUri: string; codeVerifier?: string },
  ): Promise<OAuthTokens>;
  /**
   * New tokens for old (a refresh token, or Meta's long-lived token extended). The answer's
   * refresh token replaces the old one, which is dead from then on. Throws a PublicationError
   * (`reconnect`) when the connection cannot be refreshed: LinkedIn without a partner refresh
   * token, or a refresh token the platform refuses.
   */
  refresh(ctx: OAuthContext, tokens: OAuthTokens): Promise<OAuthTokens>;
  /** The account the tokens act as: its handle and the ids publishing needs. */
  identify(ctx: OAuthContext, credentials: Record<string, unknown>): Promise<ConnectedIdentity>;
};
