// SQL for connected platform accounts: one per brand and platform. The connectors issue adds
// the encrypted credentials and the `connect` command that checks them with the platform.
import type { Queryable } from '../db/pool.ts';
import type { Platform } from '../kernel/platforms.ts';

export type ConnectedAccountRow = {
  id: string;
  account_id: string;
  brand_id: string;
  platform: Platform;
  handle: string;
  status: 'active' | 'needs_reconnect';
  last_error: string | null;
  created_at: Date;
};

/** Connects (or reconnects) the brand's account on a platform, with sealed credentials. */
export async function upsertConnectedAccount(
  db: Queryable,
  c: {
    accountId: string;
    brandId: string;
    platform: Platform;
    handle: string;
    credentials?: Buffer;
    /** An OAuth connection's expiries; none (never, or unknown) when omitted. */
    expiry?: ConnectionExpiry;
  },
): Promise<ConnectedAccountRow> {
  const e = c.expiry ?? NO_EXPIRY;
  const { rows } = await db.query<ConnectedAccountRow>(
    `insert into connected_accounts (account_id, brand_id, platform, handle, credentials,
                                     token_expires_at, refresh_expires_at, refreshable)
     values ($1, $2, $3, $4, $5, $6, $7, $8)
     on conflict (brand_id, platform)
       do update set handle = excluded.handle, credentials = excluded.credentials,
                     token_expires_at = excluded.token_expires_at,
                     refresh_expires_at = excluded.refresh_expires_at,
                     refreshable = excluded.refreshable,
                     status = 'active', last_error = null
     returning id, account_id, brand_id, platform, handle, status, last_error, created_at`,
    [
      c.accountId,
      c.brandId,
      c.platform,
      c.handle,
      c.credentials ?? null,
      e.tokenExpiresAt,
      e.refreshExpiresAt,
      e.refreshable,
    ],
  );
  return rows[0]!;
}

/** When an OAuth connection's tokens expire, as stored beside its sealed credentials. */
export type ConnectionExpiry = {
  tokenExpiresAt: Date | null;
  refreshExpiresAt: Date | null;
  /** Whether the access token can be renewed without the account's owner. */
  refreshable: boolean;
};
const NO_EXPIRY: ConnectionExpiry = {
  tokenExpiresAt: null,
  refreshExpiresAt: null,
  refreshable: true,
};

/**
 * The connection's row locked for a token refresh (until `tx` ends), with its sealed
 * credentials as they are now. A row another transaction holds fails at once (55P03) rather
 * than wait: a waiter would hold its pool connection for the whole of the other's refresh.
 * Undefined when the connection was removed.
 */
export async function lockForRefresh(
  tx: Queryable,
  connectedAccountId: string,
): Promise<
  | { status: 'active' | 'needs_reconnect'; last_error: string | null; credentials: Buffer | null }
  | undefined
> {
  const { rows } = await tx.query(
    `select status, last_error, credentials from connected_accounts where id = $1
     for update nowait`,
    [connectedAccountId],
  );
  return rows[0];
}

/** Stores refreshed tokens (sealed) and their expiries, in the refresh's transaction. */
export async function storeRefreshedTokens(
  tx: Queryable,
  connectedAccountId: string,
  sealed: Buffer,
  expiry: ConnectionExpiry,
) {
  await tx.query(
    `update connected_accounts
     set credentials = $2, token_expires_at = $3, refresh_expires_at = $4, refreshable = $5
     where id = $1`,
    [
      connectedAccountId,
      sealed,
      expiry.tokenExpiresAt,
      expiry.refreshExpiresAt,
      expiry.refreshable,
    ],
  );
}

/** A publication found the credentials revoked or expired: posts fail until reconnected. */
export async function markNeedsReconnect(db: Queryable, connectedAccountId: string, error: string) {
  await db.query(
    `update connected_accounts set status = 'needs_reconnect', last_error = $2 where id = $1`,
    [connectedAccountId, error],
  );
}

/** A publication failed for another reason: the account stays usable; the reason is kept. */
export async function recordAccountError(db: Queryable, connectedAccountId: string, error: string) {
  await db.query('update connected_accounts set last_error = $2 where id = $1', [
    connectedAccountId,
    error,
  ]);
}

/** Clears the account's error if `said` it ("Reading trends: ..."): that reading works again. */
export async function clearAccountError(db: Queryable, connectedAccountId: string, said: string) {
  await db.query(
    `update connected_accounts set last_error = null
     where id = $1 and starts_with(last_error, $2)`,
    [connectedAccountId, `${said}: `],
  );
}

/** Replaces the sealed credentials (a connector refreshed its session). */
export async function saveSealedCredentials(
  db: Queryable,
  connectedAccountId: string,
  sealed: Buffer,
) {
  await db.query('update connected_accounts set credentials = $2 where id = $1', [
    connectedAccountId,
    sealed,
  ]);
}

/** The brand's connected accounts with their sealed credentials (the history import). */
export async function sealedAccountsOf(
  db: Queryable,
  accountId: string,
  brandId: string,
): Promise<{ id: string; platform: Platform; handle: string; credentials: Buffer | null }[]> {
  const { rows } = await db.query(
    `select id::text, platform, handle, credentials from connected_accounts
     where account_id = $1 and brand_id = $2 and status = 'active' order by platform`,
    [accountId, brandId],
  );
  return rows;
}

/** One connected account with its sealed credentials (a collection job's), if still active. */
export async function sealedAccount(
  db: Queryable,
  connectedAccountId: string,
): Promise<
  | {
      id: string;
      account_id: string;
      brand_id: string;
      platform: Platform;
      handle: string;
      credentials: Buffer | null;
    }
  | undefined
> {
  const { rows } = await db.query(
    `select id::text, account_id::text, brand_id::text, platform, handle, credentials
     from connected_accounts
     where id = $1 and status = 'active'`,
    [connectedAccountId],
  );
  return rows[0];
}

/** The active connected accounts on `platforms`, for a reading cron (trends). */
export async function activeAccounts(
  db: Queryable,
  platforms: readonly string[],
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id::text from connected_accounts
     where status = 'active' and platform = any($1::text[]) order by id`,
    [platforms],
  );
  return rows.map((r) => r.id);
}

/** The brand's connections' health by platform (the warning a post's answer carries). */
export async function connectionStatusesOf(
  db: Queryable,
  accountId: string,
  brandId: string,
): Promise<
  {
    platform: Platform;
    status: 'active' | 'needs_reconnect';
    handle: string;
    expires_at: Date | null;
  }[]
> {
  // Prepared: it runs beside every post created for a brand not read within the second. The
  // expiry is when the connection stops working without a reconnect (as listConnectedAccounts).
  const { rows } = await db.query({
    name: 'brand_connection_statuses',
    text: `select platform, status, handle,
                  coalesce(refresh_expires_at, case when not refreshable then token_expires_at end)
                    as expires_at
           from connected_accounts
           where account_id = $1 and brand_id = $2`,
    values: [accountId, brandId],
  });
  return rows;
}

/**
 * The active connections on `platforms` whose access token expires before `before` (or has
 * expired), the soonest first, at most `limit`: those to renew before they die unused.
 */
export async function connectionsExpiringBefore(
  db: Queryable,
  platforms: readonly Platform[],
  before: Date,
  limit: number,
): Promise<{ id: string; platform: Platform }[]> {
  const { rows } = await db.query(
    `select id::text, platform from connected_accounts
     where status = 'active' and credentials is not null and refreshable
       and platform = any($1::text[]) and token_expires_at < $2
     order by token_expires_at, id
     limit $3`,
    [platforms, before, limit],
  );
  return rows;
}

/** One of the account's connections with its sealed credentials, active or not; else undefined. */
export async function ownedConnection(
  db: Queryable,
  accountId: string,
  connectedAccountId: string,
): Promise<
  | { id: string; brand_id: string; platform: Platform; handle: string; credentials: Buffer | null }
  | undefined
> {
  const { rows } = await db.query(
    `select id::text, brand_id::text, platform, handle, credentials from connected_accounts
     where id = $1 and account_id = $2`,
    [connectedAccountId, accountId],
  );
  return rows[0];
}

/**
 * The connection's sealed credentials, its row locked until `tx` ends (waiting for a refresh
 * that holds it); undefined when it was removed.
 */
export async function lockConnection(
  tx: Queryable,
  connectedAccountId: string,
): Promise<{ credentials: Buffer | null } | undefined> {
  const { rows } = await tx.query(
    'select credentials from connected_accounts where id = $1 for update',
    [connectedAccountId],
  );
  return rows[0];
}

/**
 * Makes the connection publish as another account of the same login (a Facebook Page): its
 * handle and sealed credentials replaced, its id and posts kept, active again.
 */
export async function storeChosenAccount(
  tx: Queryable,
  connectedAccountId: string,
  c: { handle: string; sealed: Buffer; expiry: ConnectionExpiry },
) {
  await tx.query(
    `update connected_accounts
     set handle = $2, credentials = $3, token_expires_at = $4, refresh_expires_at = $5,
         refreshable = $6, status = 'active', last_error = null
     where id = $1`,
    [
      connectedAccountId,
      c.handle,
      c.sealed,
      c.expiry.tokenExpiresAt,
      c.expiry.refreshExpiresAt,
      c.expiry.refreshable,
    ],
  );
}
