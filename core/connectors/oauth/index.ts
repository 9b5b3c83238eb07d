// Each OAuth platform's OAuthApp (core/connectors/oauthApp.ts), by platform: the connect flow,
// the CLI's `connect`, and the token refresh look a platform up here. A platform missing here
// cannot be connected yet.
import type { OAuthPlatform } from '../../platformApps.ts';
import type { OAuthApp } from '../oauthApp.ts';
import { xOAuthApp } from './x.ts';

export const OAUTH_APPS: Partial<Record<OAuthPlatform, OAuthApp>> = { x: xOAuthApp };
