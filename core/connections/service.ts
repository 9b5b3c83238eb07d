// Connected platform accounts: as list_accounts shows them (credentials are never shown), and
// as the jobs that publish or read through them open them and report on them.
import { brandsOf, requireOwnedBrand } from '../brands/service.ts';
import type { Config } from '../config.ts';
import {
  type ConnectedIdentity,
  type OAuthApps,
  type OAuthTokens,
  PublicationError,
} from '../connectors/schema.ts';
import { withoutSecrets } from '../connectors/service.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Platform } from '../kernel/platforms.ts';
import { type OutboundLog, outboundPolicy } from '../outbound/guard.ts';
import { isOAuthPlatform, type OAuthPlatform } from '../platformApps.ts';
import { configuredCredentialsKey, sealCredentials, secretValues } from './credentials.ts';
import {
  activeAccounts,
  markNeedsReconnect,
  recordAccountError,
  saveSealedCredentials,
  sealedAccount,
  sealedAccountsOf,
  upsertConnectedAccount,
} from './db.ts';
import { forgetBrandHealth } from './health.ts';
import { platformStates } from './platforms.ts';
import type { ConnectedAccount, PlatformState } from './schema.ts';
import { connectionExpiry } from './tokens.ts';

export { ConnectedAccount } from './schema.ts';

/** The account's connected platform accounts, of one brand or of all. */
export async function listConnectedAccounts(
  db: Queryable,
  accountId: string,
  brandId?: string,
): Promise<ConnectedAccount[]> {
  // A connection ends with its refresh token, or with its access token when that cannot be
  // renewed (LinkedIn without a partner refresh token).
  const { rows } = await db.query(
    `select id, brand_id, platform, handle, status, last_error, created_at,
            coalesce(refresh_expires_at, case when not refreshable then token_expires_at end)
              as expires_at
     from connected_accounts
     where account_id = $1 and ($2::bigint is null or brand_id = $2)
     order by brand_id, platform`,
    [accountId, brandId ?? null],
  );
  const now = Date.now();
  return rows.map(({ expires_at, ...r }) => ({
    ...r,
    created_at: r.created_at.toISOString(),
    expires_at: expires_at?.toISOString() ?? null,
    reconnect_soon: expires_at !== null && expires_at.getTime() - now < RECONNECT_NOTICE_MS,
  }));
}

/** How long before a connection expires the Accounts page and list_accounts ask for a reconnect. */
export const RECONNECT_NOTICE_MS = 7 * 86_400_000;

/**
 * Connects (or reconnects) the brand's account on a platform: the credentials are checked
 * with the platform (through the outbound guard) before anything is stored, then sealed.
 * The operator CLI's `connect` and the dashboard's connected accounts page.
 */
export async function connectAccount(
  pool: Pool,
  config: Config,
  input: {
    accountId: string;
    brandId: string;
    platform: Platform;
    config: Record<string, unknown>;
  },
  /** Where a refusal of the outbound guard records what it does not tell the caller. */
  log?: OutboundLog,
) {
  if (isOAuthPlatform(input.platform))
    return connectWithTokens(
      pool,
      config,
      {
        accountId: input.accountId,
        brandId: input.brandId,
        platform: input.platform,
        credentials: input.config as OAuthCredentials,
      },
      { log },
    );
  await requireOwnedBrand(pool, input.accountId, input.brandId);
  // The connectors (and the S3 client and sharp behind them) load only when one connects, so
  // the CLI's other commands start without them.
  const { verifyConnection } = await import('../connectors/service.ts');
  const verified = await verifyConnection(
    input.platform,
    input.config,
    outboundPolicy(config, log),
  );
  const key = configuredCredentialsKey(config);
  const connected = await upsertConnectedAccount(pool, {
    accountId: input.accountId,
    brandId: input.brandId,
    platform: input.platform,
    handle: verified.handle,
    credentials: sealCredentials(key, verified.credentials),
  });
  forgetBrandHealth(input.brandId);
  return { id: connected.id, platform: connected.platform, handle: connected.handle };
}

/**
 * Every platform with where the brand (or each of the account's brands) stands on it: its
 * connection's health and expiry, or what connecting it takes (list_accounts' `platforms`).
 */
export async function listPlatformStates(
  db: Queryable,
  config: Pick<Config, 'platformApps' | 'publicBaseUrl'>,
  apps: OAuthApps,
  accountId: string,
  brandId?: string,
): Promise<PlatformState[]> {
  return (await listAccountsAndPlatforms(db, config, apps, accountId, brandId)).platforms;
}

/** The connected accounts and every platform's state from them, read once (list_accounts). */
export async function listAccountsAndPlatforms(
  db: Queryable,
  config: Pick<Config, 'platformApps' | 'publicBaseUrl'>,
  apps: OAuthApps,
  accountId: string,
  brandId?: string,
): Promise<{ accounts: ConnectedAccount[]; platforms: PlatformState[] }> {
  const brandIds = brandId ? [brandId] : (await brandsOf(db, accountId)).map((b) => b.id);
  const accounts = await listConnectedAccounts(db, accountId, brandId);
  return { accounts, platforms: platformStates(config, apps, brandIds, accounts) };
}

/** An OAuth connection's credentials: its tokens and the fields its publishing needs. */
export type OAuthCredentials = OAuthTokens & Record<string, unknown>;

/**
 * Connects (or reconnects) the brand's account on an OAuth platform with tokens it already
 * has (the dashboard's callback, from the code exchange; the CLI's `connect --config`): the
 * platform's identity call names the account (through the outbound guard), then the tokens,
 * the ids it answered and the other fields are sealed and the connection stored active, with
 * when its tokens expire.
 */
export async function connectWithTokens(
  pool: Pool,
  config: Config,
  input: {
    accountId: string;
    brandId: string;
    platform: OAuthPlatform;
    credentials: OAuthCredentials;
  },
  opts: {
    /** Where a refusal of the outbound guard records what it does not tell the caller. */
    log?: OutboundLog;
    /** OAuth apps that stand in for the shipped ones (OAUTH_APPS) on their platforms. */
    apps?: OAuthApps;
  } = {},
): Promise<{ id: string; platform: Platform; handle: string }> {
  const { platform } = input;
  await requireOwnedBrand(pool, input.accountId, input.brandId);
  const app =
    opts.apps?.[platform] ?? (await import('../connectors/service.ts')).OAUTH_APPS[platform];
  let identity: ConnectedIdentity;
  try {
    identity = await app.identify(
      { app: config.platformApps[platform], policy: outboundPolicy(config, opts.log) },
      input.credentials,
    );
  } catch (err) {
    if (err instanceof PublicationError)
      throw new DomainError(
        'credentials_refused',
        `The ${platform} credentials were not accepted: ${withoutSecrets(err.message, secretValues(input.credentials))}`,
      );
    throw err;
  }
  // The platform's answer is a third party's: a connection is shown under a sane handle only.
  const handle = identity.handle.trim();
  if (!handle || handle.length > 300)
    throw new DomainError(
      'credentials_refused',
      `The ${platform} identity call did not name the account; nothing was stored.`,
    );
  const credentials: Record<string, unknown> = { ...input.credentials, ...identity.fields };
  const key = configuredCredentialsKey(config);
  const connected = await upsertConnectedAccount(pool, {
    accountId: input.accountId,
    brandId: input.brandId,
    platform,
    handle,
    credentials: sealCredentials(key, credentials),
    expiry: connectionExpiry(platform, credentials),
  });
  forgetBrandHealth(input.brandId);
  return { id: connected.id, platform: connected.platform, handle: connected.handle };
}

/** A connected account with its sealed credentials, for a job that reads or posts through it. */
export type SealedAccount = {
  id: string;
  account_id: string;
  brand_id: string;
  platform: Platform;
  handle: string;
  credentials: Buffer | null;
};

/** The brand's active connected accounts with their sealed credentials, by platform. */
export async function activeAccountsOfBrand(
  db: Queryable,
  accountId: string,
  brandId: string,
): Promise<Pick<SealedAccount, 'id' | 'platform' | 'handle' | 'credentials'>[]> {
  return sealedAccountsOf(db, accountId, brandId);
}

/** One connected account with its sealed credentials (a collection job's), if still active. */
export async function activeAccount(
  db: Queryable,
  connectedAccountId: string,
): Promise<SealedAccount | undefined> {
  return sealedAccount(db, connectedAccountId);
}

/** The ids of the active connected accounts on `platforms`, for a reading cron. */
export async function activeAccountIdsOn(
  db: Queryable,
  platforms: readonly string[],
): Promise<string[]> {
  return activeAccounts(db, platforms);
}

/** Keeps the credentials a connector refreshed (its new session), sealed. */
export async function keepRefreshedCredentials(
  db: Queryable,
  connectedAccountId: string,
  sealed: Buffer,
): Promise<void> {
  await saveSealedCredentials(db, connectedAccountId, sealed);
}

/**
 * Says a failed publication on the account: a refused credential (`reconnect`) marks it to
 * reconnect, so later posts fail until it is; any other reason is kept and the account stays.
 */
export async function reportPublicationFailure(
  db: Queryable,
  connectedAccountId: string,
  message: string,
  { reconnect }: { reconnect: boolean },
): Promise<void> {
  if (reconnect) await markNeedsReconnect(db, connectedAccountId, message);
  else await recordAccountError(db, connectedAccountId, message);
}

export type { CredentialsKey } from './credentials.ts';
export {
  configuredCredentialsKey,
  credentialsKey,
  openCredentials,
  openedAccess,
  sealCredentials,
} from './credentials.ts';
export type { FacebookPageDeps } from './facebookPages.ts';
export { chooseFacebookPage, listFacebookPages } from './facebookPages.ts';
export type { BrandConnection, ConnectionStatus } from './health.ts';
export { brandConnectionStatuses } from './health.ts';
export type { Reading, ReadingDeps } from './reading.ts';
export { readThrough } from './reading.ts';
export type { Renewal, RenewalDeps } from './renew.ts';
export { RENEWAL_WINDOW_MS, renewIdleConnections } from './renew.ts';
export type { OAuthDeps } from './tokens.ts';
export { keepingSecrets, REFRESH_MARGIN_MS, withAccessTokens } from './tokens.ts';
