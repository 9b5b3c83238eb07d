// The connectors' types: the Connector interface every platform implements and what passes
// through it (publications, readings, inbound posts, trends), and the OAuth app each OAuth
// platform implements.
import type { OAuthPlatform } from '../platformApps.ts';
import type { OAuthApp } from './oauthApp.ts';

export type {
  AccessTokens,
  ConnectedAccountAccess,
  Connector,
  Connectors,
  InboundPost,
  PastPost,
  PostCounts,
  Publication,
  PublicationSteps,
  PublicMedia,
  PublishMedia,
  PublishRequest,
  Trend,
} from './connector.ts';
export { PublicationError, platformsWith } from './connector.ts';
export type {
  ConnectedIdentity,
  OAuthApp,
  OAuthContext,
  OAuthTokens,
} from './oauthApp.ts';

/** The OAuthApps by platform a process connects and refreshes with (OAUTH_APPS, or a test's). */
export type OAuthApps = Partial<Record<OAuthPlatform, OAuthApp>>;
