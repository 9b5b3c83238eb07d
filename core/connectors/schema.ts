// The connectors' types: the Connector interface every platform implements and what passes
// through it (publications, readings, inbound posts, trends).

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

import type { OAuthPlatform } from '../platformApps.ts';
import type { OAuthApp } from './oauthApp.ts';

/** The OAuthApps by platform that a process connects and refreshes with (OAUTH_APPS unless a test gives its own). */
export type OAuthApps = Partial<Record<OAuthPlatform, OAuthApp>>;
