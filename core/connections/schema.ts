// What connecting a platform account takes: the credentials its connector checks with the
// platform before anything is stored. The dashboard (POST /app/api/accounts, ConnectInput) and
// the operator CLI's `connect --config` (CONNECTION_CONFIGS) read the same fields by one rule.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import { PLATFORMS, type Platform } from '../kernel/platformNames.ts';
import type { OAuthPlatform } from '../platformApps.ts';

const PlatformUrl = z.url({ protocol: /^https?$/ }).max(2000);

/** A Bluesky account: an app password, signed in at its PDS or the entryway. */
const BlueskyConfig = z.object({
  service: PlatformUrl,
  identifier: z.string().trim().min(1).max(300),
  app_password: z.string().min(1).max(200),
});

/** A Mastodon account: an access token of its instance. */
const MastodonConfig = z.object({
  instance: PlatformUrl,
  access_token: z.string().min(1).max(500),
});

/**
 * An OAuth platform's tokens, as the operator has them (CONTRACT.md, Operator CLI): the
 * dashboard's connect flow gets the same from the platform.
 */
const OAuthTokensConfig = z.object({
  access_token: z.string().trim().min(1).max(4000),
  refresh_token: z.string().trim().min(1).max(4000).optional(),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});

/** The platform's id of the account or board a connection posts to. */
const AccountIdField = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[\w.:-]+$/, "must be the platform's id (letters, digits, _ . : -)");

/** Each OAuth platform's `--config`: the tokens plus the account it posts as, where it needs one. */
const OAUTH_CONFIGS = {
  x: OAuthTokensConfig,
  linkedin: OAuthTokensConfig.extend({
    organization: z
      .string()
      .regex(/^urn:li:organization:\d+$/, 'must be urn:li:organization:N')
      .optional(),
  }),
  threads: OAuthTokensConfig.extend({ user_id: AccountIdField }),
  instagram: OAuthTokensConfig.extend({ user_id: AccountIdField }),
  facebook: OAuthTokensConfig.extend({ page_id: AccountIdField }),
  tiktok: OAuthTokensConfig.extend({
    open_id: AccountIdField,
    privacy: z
      .enum(['SELF_ONLY', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'PUBLIC_TO_EVERYONE'])
      .optional(),
  }),
  youtube: OAuthTokensConfig.extend({
    privacy: z.enum(['private', 'unlisted', 'public']).optional(),
  }),
  pinterest: OAuthTokensConfig.extend({ board_id: AccountIdField }),
} satisfies Record<OAuthPlatform, z.ZodObject>;

/** What connecting takes per platform (CONTRACT.md), as the dashboard sends it: every field. */
export const ConnectInput = z.discriminatedUnion('platform', [
  z
    .object({
      platform: z.literal('bluesky'),
      brand_id: IdInput.optional(),
      config: BlueskyConfig.strict(),
    })
    .strict(),
  z
    .object({
      platform: z.literal('mastodon'),
      brand_id: IdInput.optional(),
      config: MastodonConfig.strict(),
    })
    .strict(),
]);
export type ConnectInput = z.infer<typeof ConnectInput>;

/**
 * The operator CLI's `--config`, per platform: the same fields and rules, except that Bluesky's
 * `service` may be left out (the connector then signs in at https://bsky.social). A key beside
 * the fields is refused, as the dashboard refuses it: a misspelt one (`acces_token`) must not
 * pass unseen.
 */
export const CONNECTION_CONFIGS: Partial<Record<Platform, z.ZodObject>> = {
  bluesky: BlueskyConfig.partial({ service: true }).strict(),
  mastodon: MastodonConfig.strict(),
  ...Object.fromEntries(Object.entries(OAUTH_CONFIGS).map(([p, schema]) => [p, schema.strict()])),
};

/** A connected platform account as list_accounts and the dashboard show it (never its credentials). */
export const ConnectedAccount = z.object({
  id: z.string(),
  brand_id: z.string(),
  platform: z.enum(PLATFORMS),
  handle: z.string(),
  status: z.enum(['active', 'needs_reconnect']).describe('Health: needs_reconnect fails posts.'),
  last_error: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string().nullable().describe('Works until then unless reconnected; null: renews.'),
  reconnect_soon: z.boolean().describe('Expires within 7 days.'),
});
export type ConnectedAccount = z.infer<typeof ConnectedAccount>;

/** Where a brand stands on one platform, for list_accounts' `platforms` and the Accounts page. */
export const PLATFORM_STATES = [
  'connected',
  'needs_reconnect',
  'not_connected',
  'not_configured',
] as const;

export const PlatformState = z.object({
  brand_id: z.string(),
  platform: z.enum(PLATFORMS),
  state: z.enum(PLATFORM_STATES).describe('not_configured: the operator sets `variables` first.'),
  name: z.string(),
  publishes: z.boolean().describe('false: not published to yet; posts fail when due.'),
  connect: z.enum(['oauth', 'form', 'cli']).describe('cli: by the operator CLI only.'),
  handle: z.string().nullable(),
  expires_at: z.string().nullable().describe('Works until then without a reconnect.'),
  reconnect_soon: z.boolean().describe('Expires within 7 days.'),
  last_error: z.string().nullable(),
  variables: z.array(z.string()),
  media_warning: z
    .string()
    .nullable()
    .describe('Why media posts fail: PUBLIC_BASE_URL, where it fetches media, is unreachable.'),
});
export type PlatformState = z.infer<typeof PlatformState>;

/** A Facebook Page the connection's user manages (never its token). */
export const FacebookPageView = z.object({ id: z.string(), name: z.string() });

/** The Pages a Facebook connection may publish as, and the one it publishes as now. */
export const FacebookPages = z.object({
  page_id: z.string().nullable().describe('The Page it publishes as now.'),
  pages: z.array(FacebookPageView),
});
export type FacebookPages = z.infer<typeof FacebookPages>;

/** The Page a Facebook connection is to publish as. */
export const ChooseFacebookPageInput = z
  .object({
    page_id: z
      .string()
      .regex(/^\d{1,40}$/, "must be the Page's numeric id")
      .describe('One of the Pages listed for the connection.'),
  })
  .strict();
export type ChooseFacebookPageInput = z.infer<typeof ChooseFacebookPageInput>;

/** A Facebook connection after its Page was chosen: same id, the Page's name as its handle. */
export const ChosenFacebookPage = z.object({
  id: z.string(),
  platform: z.literal('facebook'),
  handle: z.string(),
  page_id: z.string(),
});
export type ChosenFacebookPage = z.infer<typeof ChosenFacebookPage>;
