// Each OAuth platform's OAuthApp (core/connectors/oauthApp.ts), by platform: the connect flow,
// the CLI's `connect`, and the token refresh look a platform up here. Every OAuth platform has
// one (the record's type keeps it so).
import type { OAuthPlatform } from '../../platformApps.ts';
import type { OAuthApp } from '../oauthApp.ts';
import { facebookOAuthApp } from './facebook.ts';
import { instagramOAuthApp } from './instagram.ts';
import { linkedinOAuthApp } from './linkedin.ts';
import { pinterestOAuthApp } from './pinterest.ts';
import { threadsOAuthApp } from './threads.ts';
import { tiktokOAuthApp } from './tiktok.ts';
import { xOAuthApp } from './x.ts';
import { youtubeOAuthApp } from './youtube.ts';

export const OAUTH_APPS: Record<OAuthPlatform, OAuthApp> = {
  x: xOAuthApp,
  linkedin: linkedinOAuthApp,
  threads: threadsOAuthApp,
  instagram: instagramOAuthApp,
  facebook: facebookOAuthApp,
  tiktok: tiktokOAuthApp,
  youtube: youtubeOAuthApp,
  pinterest: pinterestOAuthApp,
};
