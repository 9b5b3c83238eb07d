// Connected platform accounts: as list_accounts shows them (credentials are never shown), and
// as the jobs that publish or read through them open them and report on them.
import { brandsOf, requireOwnedBrand } from '../brands/service.ts';
import type { Config } from '../config.ts';
import type { OAuthApps } from '../connectors/schema.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Platform } from '../kernel/platforms.ts';
import { type OutboundLog, outboundPolicy } from '../outbound/guard.ts';
import type { OAuthPlatform } from '../platformApps.ts';
import { loadLocalSecrets } from '../secrets.ts';
import { credentialsKey, sealCredentials } from './credentials.ts';
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

export { ConnectedAccount } from './schema.ts';

/** The account's connected platform accounts, of one brand or of all. */
export async function listConnectedAccounts(
  db: Queryable,
  accountId: string,
  brandId?: string,
): Promise<ConnectedAccount[]> {
  const { rows } = await db.query(
    `select id, brand_id, platform, handle, status, last_error, created_at
     from connected_accounts
     where account_id = $1 and ($2::bigint is null or brand_id = $2)
     order by brand_id, platform`,
    [accountId, brandId ?? null],
  );
  return rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() }));
}

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
  await requireOwnedBrand(pool, input.accountId, input.brandId);
  // The connectors (and the S3 client and sharp behind them) load only when one connects, so
  // the CLI's other commands start without them.
  const { verifyConnection } = await import('../connectors/service.ts');
  const verified = await verifyConnection(
    input.platform,
    input.config,
    outboundPolicy(config, log),
  );
  const key = credentialsKey(
    config.credentialsKey ?? loadLocalSecrets(config.dataDir).credentialsKey,
  );
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
  config: Pick<Config, 'platformApps'>,
  apps: OAuthApps,
  accountId: string,
  brandId?: string,
): Promise<PlatformState[]> {
  const brandIds = brandId ? [brandId] : (await brandsOf(db, accountId)).map((b) => b.id);
  const connections = await listConnectedAccounts(db, accountId, brandId);
  return platformStates(config, apps, brandIds, connections);
}

// MINIMAL STAND-IN for the connection layer's connectWithTokens (written on another branch,
// with the expiries and CONTRACT's fields): on merge keep that one, taking `apps` as here so
// that the dashboard's callback and its tests can hand it their OAuthApps.
/**
 * Connects (or reconnects: the same row, its posts kept) the brand's account on an OAuth
 * platform with tokens: the platform's identity call names it, then the tokens and the ids
 * publishing needs are sealed and stored.
 */
export async function connectWithTokens(
  pool: Pool,
  config: Config,
  input: {
    accountId: string;
    brandId: string;
    platform: OAuthPlatform;
    credentials: Record<string, unknown>;
  },
  opts: { apps?: OAuthApps; log?: OutboundLog } = {},
): Promise<{ id: string; platform: Platform; handle: string }> {
  await requireOwnedBrand(pool, input.accountId, input.brandId);
  const apps = opts.apps ?? (await import('../connectors/service.ts')).OAUTH_APPS;
  const oauthApp = apps[input.platform];
  if (!oauthApp)
    throw new DomainError('not_implemented', `Connecting ${input.platform} is not available yet.`);
  const identity = await oauthApp.identify(
    { app: config.platformApps[input.platform], policy: outboundPolicy(config, opts.log) },
    input.credentials,
  );
  const key = credentialsKey(
    config.credentialsKey ?? loadLocalSecrets(config.dataDir).credentialsKey,
  );
  const connected = await upsertConnectedAccount(pool, {
    accountId: input.accountId,
    brandId: input.brandId,
    platform: input.platform,
    handle: identity.handle,
    credentials: sealCredentials(key, { ...input.credentials, ...identity.fields }),
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
export { credentialsKey, openCredentials, openedAccess, sealCredentials } from './credentials.ts';
export type { ConnectionStatus } from './health.ts';
export { brandConnectionStatuses } from './health.ts';
export type { Reading, ReadingDeps } from './reading.ts';
export { readThrough } from './reading.ts';
