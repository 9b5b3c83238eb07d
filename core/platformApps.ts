// Where each OAuth platform's API lives and the operator's app credentials for it (CONTRACT.md,
// Configuration). The base URLs are variables so that a test host can stand in for a platform;
// an http: one needs OUTBOUND_ALLOW_HTTP, as every other platform address does.
import { z } from 'zod';
import type { Platform } from './kernel/platformNames.ts';

/** The platforms an account connects with OAuth 2 (the operator registers an app with each). */
export const OAUTH_PLATFORMS = [
  'x',
  'linkedin',
  'threads',
  'instagram',
  'facebook',
  'tiktok',
  'youtube',
  'pinterest',
] as const satisfies readonly Platform[];
export type OAuthPlatform = (typeof OAUTH_PLATFORMS)[number];

export const isOAuthPlatform = (p: string): p is OAuthPlatform =>
  (OAUTH_PLATFORMS as readonly string[]).includes(p);

/** One platform's addresses and the operator's app on it. */
export type PlatformApp = {
  /** The operator's app credentials (`<P>_CLIENT_ID`, `<P>_CLIENT_SECRET`); unset: no connect flow. */
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** The variables that name them, for the message that asks an operator to set them. */
  clientVars: readonly [id: string, secret: string];
  /** Where the dashboard's connect flow sends the browser (`<P>_AUTHORIZE_URL`). */
  authorizeUrl: string;
  /** The platform's API (`<P>_API_URL`), without a trailing slash. */
  apiUrl: string;
  /** The host of the token exchange: apiUrl, but for LinkedIn, Google and Instagram Login. */
  oauthUrl: string;
  /** Facebook's video upload host (FACEBOOK_VIDEO_URL); apiUrl elsewhere. */
  videoUrl: string;
};

type Address = readonly [variable: string, fallback: string];

/** Each platform's variables and documented defaults. `prefix` names its client variables. */
const APPS: Record<
  OAuthPlatform,
  { prefix: string; api: Address; authorize: string; oauth?: Address; video?: Address }
> = {
  x: {
    prefix: 'X',
    api: ['X_API_URL', 'https://api.x.com'],
    authorize: 'https://x.com/i/oauth2/authorize',
  },
  linkedin: {
    prefix: 'LINKEDIN',
    api: ['LINKEDIN_API_URL', 'https://api.linkedin.com'],
    oauth: ['LINKEDIN_OAUTH_URL', 'https://www.linkedin.com'],
    authorize: 'https://www.linkedin.com/oauth/v2/authorization',
  },
  threads: {
    prefix: 'THREADS',
    api: ['THREADS_API_URL', 'https://graph.threads.net'],
    authorize: 'https://threads.com/oauth/authorize',
  },
  instagram: {
    prefix: 'INSTAGRAM',
    api: ['INSTAGRAM_API_URL', 'https://graph.instagram.com'],
    oauth: ['INSTAGRAM_OAUTH_URL', 'https://api.instagram.com'],
    authorize: 'https://www.instagram.com/oauth/authorize',
  },
  facebook: {
    prefix: 'FACEBOOK',
    api: ['FACEBOOK_API_URL', 'https://graph.facebook.com'],
    video: ['FACEBOOK_VIDEO_URL', 'https://graph-video.facebook.com'],
    authorize: 'https://www.facebook.com/dialog/oauth',
  },
  tiktok: {
    prefix: 'TIKTOK',
    api: ['TIKTOK_API_URL', 'https://open.tiktokapis.com'],
    authorize: 'https://www.tiktok.com/v2/auth/authorize/',
  },
  youtube: {
    prefix: 'GOOGLE',
    api: ['YOUTUBE_API_URL', 'https://www.googleapis.com'],
    oauth: ['GOOGLE_OAUTH_URL', 'https://oauth2.googleapis.com'],
    authorize: 'https://accounts.google.com/o/oauth2/v2/auth',
  },
  pinterest: {
    prefix: 'PINTEREST',
    api: ['PINTEREST_API_URL', 'https://api.pinterest.com'],
    authorize: 'https://www.pinterest.com/oauth/',
  },
};

const httpUrl = z.url({ protocol: /^https?$/ }).max(2000);
const credential = z.string().trim().min(1).max(500);

/** The variables above as zod fields, spread into the environment's schema. */
export const PLATFORM_ENV: Record<string, z.ZodOptional<z.ZodString>> = Object.fromEntries(
  Object.values(APPS).flatMap((a) => [
    [`${a.prefix}_CLIENT_ID`, credential.optional()],
    [`${a.prefix}_CLIENT_SECRET`, credential.optional()],
    [`${a.prefix}_AUTHORIZE_URL`, httpUrl.optional()],
    ...[a.api, a.oauth, a.video].flatMap((addr) => (addr ? [[addr[0], httpUrl.optional()]] : [])),
  ]),
);

/** The platform address variables that are set to an http: URL (each needs OUTBOUND_ALLOW_HTTP). */
export function plainHttpPlatformVars(env: Record<string, unknown>): string[] {
  return Object.keys(PLATFORM_ENV).filter(
    (name) => name.endsWith('_URL') && typeof env[name] === 'string' && /^http:/i.test(env[name]),
  );
}

const trimmed = (url: string) => url.replace(/\/+$/, '');

/** Every OAuth platform's app and addresses, from the parsed environment. */
export function platformApps(env: Record<string, unknown>): Record<OAuthPlatform, PlatformApp> {
  const read = (name: string) => (typeof env[name] === 'string' ? env[name] : undefined);
  const address = (addr: Address) => trimmed(read(addr[0]) ?? addr[1]);
  return Object.fromEntries(
    OAUTH_PLATFORMS.map((platform) => {
      const a = APPS[platform];
      const apiUrl = address(a.api);
      const app: PlatformApp = {
        clientId: read(`${a.prefix}_CLIENT_ID`),
        clientSecret: read(`${a.prefix}_CLIENT_SECRET`),
        clientVars: [`${a.prefix}_CLIENT_ID`, `${a.prefix}_CLIENT_SECRET`],
        authorizeUrl: read(`${a.prefix}_AUTHORIZE_URL`) ?? a.authorize,
        apiUrl,
        oauthUrl: a.oauth ? address(a.oauth) : apiUrl,
        videoUrl: a.video ? address(a.video) : apiUrl,
      };
      return [platform, app];
    }),
  ) as Record<OAuthPlatform, PlatformApp>;
}
