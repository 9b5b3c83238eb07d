// The access token of one OAuth connection, kept fresh for the jobs that publish or read
// through it. A refresh runs under the connection's row lock and stores what the platform
// answered in the same transaction: refresh tokens may be single-use (X is reported to revoke
// the whole family when a spent one comes back), so two jobs must never both spend one, and
// a new refresh token must never be lost between the platform's answer and our commit.
import {
  type AccessTokens,
  type ConnectedAccountAccess,
  type OAuthApp,
  type OAuthTokens,
  PublicationError,
} from '../connectors/schema.ts';
import { OAUTH_APPS, withoutSecrets } from '../connectors/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { PLATFORM_NAMES } from '../kernel/platformNames.ts';
import type { Platform } from '../kernel/platforms.ts';
import type { OutboundPolicy } from '../outbound/guard.ts';
import { isOAuthPlatform, type OAuthPlatform, type PlatformApp } from '../platformApps.ts';
import {
  type CredentialsKey,
  openCredentials,
  sealCredentials,
  secretValues,
} from './credentials.ts';
import {
  type ConnectionExpiry,
  lockForRefresh,
  markNeedsReconnect,
  storeRefreshedTokens,
} from './db.ts';

/** An access token expiring sooner than this is refreshed before it is used. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/**
 * How soon a job that met another's refresh of the same connection tries again: it does not
 * wait on the lock (its pool connection would be held as long as the platform takes), and by
 * then the other has stored the new tokens, which the retry finds.
 */
export const REFRESH_BUSY_RETRY_MS = 2_000;

/** What refreshing OAuth connections takes: the operator's apps and the outbound guard. */
export type OAuthDeps = {
  /** Each OAuth platform's addresses and app credentials (Config.platformApps). */
  platformApps: Record<OAuthPlatform, PlatformApp>;
  outbound: OutboundPolicy;
  /** OAuth apps that stand in for the shipped ones (OAUTH_APPS) on their platforms. */
  apps?: Partial<Record<OAuthPlatform, OAuthApp>>;
};

/**
 * Threads and Instagram extend a long-lived access token with itself: no refresh token
 * needed, but one left unused for its 60 days dies. (Facebook renews its Page token with the
 * long-lived user token kept as the refresh token: without one it cannot be renewed.)
 */
export const RENEWED_WITHOUT_REFRESH_TOKEN: readonly OAuthPlatform[] = ['threads', 'instagram'];

const dateOf = (v: unknown) =>
  typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? new Date(v) : null;

/** The expiries stored beside a connection's credentials (its tokens as stored). */
export function connectionExpiry(
  platform: OAuthPlatform,
  credentials: Record<string, unknown>,
): ConnectionExpiry {
  const hasRefreshToken =
    typeof credentials.refresh_token === 'string' && credentials.refresh_token !== '';
  return {
    tokenExpiresAt: dateOf(credentials.expires_at),
    refreshExpiresAt: dateOf(credentials.refresh_expires_at),
    refreshable: hasRefreshToken || RENEWED_WITHOUT_REFRESH_TOKEN.includes(platform),
  };
}

/**
 * Whether the stored access token expires within `ms` of `now`. A token without a readable
 * expiry never does: it is refreshed only once the platform refuses it.
 */
export const expiresWithin = (
  credentials: Record<string, unknown>,
  ms: number,
  now = Date.now(),
): boolean => {
  const at = dateOf(credentials.expires_at);
  return at !== null && at.getTime() - now < ms;
};

const expiresSoon = (credentials: Record<string, unknown>) =>
  expiresWithin(credentials, REFRESH_MARGIN_MS);

/**
 * The stored tokens after a refresh: the new access token, and the refresh token the answer
 * carried (the old one is dead from then on); the old refresh token stays only when the
 * answer has none (Google, Meta). An expiry the answer does not give is not kept: it was the
 * old token's.
 */
function afterRefresh(stored: Record<string, unknown>, next: OAuthTokens): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored, access_token: next.access_token };
  delete out.expires_at;
  if (next.expires_at) out.expires_at = next.expires_at;
  if (next.refresh_token) {
    out.refresh_token = next.refresh_token;
    delete out.refresh_expires_at;
  }
  if (next.refresh_expires_at) out.refresh_expires_at = next.refresh_expires_at;
  if (next.scope) out.scope = next.scope;
  return out;
}

/**
 * A refresh the platform refused for good (the grant is revoked, expired or spent): only the
 * OAuthApp can tell, from the platform's own error, and says so with `reconnect`. Any other
 * refusal (a client the operator misconfigured) fails the post and leaves the connection.
 */
const refusedForGood = (err: unknown) => err instanceof PublicationError && err.reconnect;

/** Postgres' lock_not_available: the row is locked and `nowait` would not wait. */
const LOCK_NOT_AVAILABLE = '55P03';

const reconnectReason = (platform: Platform, why: string) =>
  `The ${PLATFORM_NAMES[platform]} connection needs to be reconnected: ${why}`;
const needsReconnect = (platform: Platform, why: string) =>
  new PublicationError(reconnectReason(platform, why), { retryable: false, reconnect: true });

/** What a refresh under the lock came to (other failures are thrown, as the platform's). */
export type LockedRefresh =
  /** The stored tokens: refreshed now, or by another job, or still good (`stale` said no). */
  | { tokens: Record<string, unknown> }
  /** The connection needs reconnecting (marked so now, or already): the reason. */
  | { refused: string }
  /** Another transaction holds the row (it is refreshing): nothing was done. */
  | { busy: true };

/**
 * Refreshes the connection's tokens under its row lock if `stale` still holds of the stored
 * ones, else answers them as stored: what the platform answers is stored (sealed, with its
 * expiries) in the same transaction, and a refusal for good marks the connection to
 * reconnect with the reason. The one refresh of OAuth connections: the jobs' AccessTokens
 * and the renewal of idle connections both go through it.
 */
export async function refreshUnderLock(
  deps: { pool: Pool; credentialsKey: CredentialsKey; oauth: OAuthDeps },
  connection: { id: string; platform: OAuthPlatform },
  app: OAuthApp,
  stale: (stored: Record<string, unknown>) => boolean,
  signal?: AbortSignal,
): Promise<LockedRefresh> {
  const { pool, credentialsKey, oauth } = deps;
  const { id, platform } = connection;
  const name = PLATFORM_NAMES[platform];
  const ctx = { app: oauth.platformApps[platform], policy: oauth.outbound, signal };
  try {
    return await withTransaction(pool, async (tx): Promise<LockedRefresh> => {
      const row = await lockForRefresh(tx, id);
      if (!row?.credentials)
        return { refused: reconnectReason(platform, 'it was removed or holds no credentials.') };
      if (row.status === 'needs_reconnect')
        return {
          refused: row.last_error ?? reconnectReason(platform, 'an earlier refresh was refused.'),
        };
      const stored = openCredentials(credentialsKey, row.credentials);
      // Another job refreshed while this one waited for the lock: its tokens are the ones.
      if (!stale(stored)) return { tokens: stored };
      let next: OAuthTokens;
      try {
        next = await app.refresh(ctx, stored as OAuthTokens);
      } catch (err) {
        if (!(err instanceof PublicationError)) throw err;
        const said = withoutSecrets(err.message, secretValues(stored));
        if (!refusedForGood(err)) {
          if (said === err.message) throw err;
          throw new PublicationError(said, {
            retryable: err.retryable,
            retryAfterMs: err.retryAfterMs,
            retryAt: err.retryAt,
            status: err.status,
          });
        }
        const reason = reconnectReason(
          platform,
          `${name} refused to refresh its access token (${said}).`,
        );
        // Committed with this transaction: later jobs fail at once instead of asking again.
        await markNeedsReconnect(tx, id, reason);
        return { refused: reason };
      }
      if (typeof next?.access_token !== 'string' || next.access_token === '')
        throw new PublicationError(`${name} answered a refresh without an access token.`, {
          retryable: false,
        });
      const tokens = afterRefresh(stored, next);
      await storeRefreshedTokens(
        tx,
        id,
        sealCredentials(credentialsKey, tokens),
        connectionExpiry(platform, tokens),
      );
      return { tokens };
    });
  } catch (err) {
    if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) return { busy: true };
    throw err;
  }
}

/**
 * The AccessTokens of one connected account. `credentials` is the account's opened
 * credentials as its connector sees them: a refresh updates them in place, so a connector
 * that reads a field beside the token reads the stored one.
 */
export function connectionTokens(
  deps: {
    pool: Pool;
    credentialsKey: CredentialsKey;
    oauth: OAuthDeps;
  },
  connection: { id: string; platform: OAuthPlatform; credentials: Record<string, unknown> },
  app: OAuthApp,
  signal?: AbortSignal,
): AccessTokens {
  const { platform, credentials } = connection;
  const name = PLATFORM_NAMES[platform];
  /** Tokens this object got from a refresh it made after a refusal: refused again, it stops. */
  const refreshedAfterRefusal = new Set<string>();

  const accessToken = (c: Record<string, unknown>) => {
    if (typeof c.access_token !== 'string' || c.access_token === '')
      throw needsReconnect(platform, 'its stored credentials hold no access token.');
    return c.access_token;
  };

  /** Refreshes under the row lock if `stale` still holds of the stored tokens, else uses them. */
  async function refresh(stale: (stored: Record<string, unknown>) => boolean): Promise<string> {
    const outcome = await refreshUnderLock(deps, connection, app, stale, signal);
    if ('busy' in outcome)
      throw new PublicationError(
        `Another job is refreshing the ${name} connection's token; trying again shortly.`,
        { retryable: true, retryAfterMs: REFRESH_BUSY_RETRY_MS },
      );
    if ('refused' in outcome)
      throw new PublicationError(outcome.refused, { retryable: false, reconnect: true });
    for (const key of Object.keys(credentials)) delete credentials[key];
    Object.assign(credentials, outcome.tokens);
    return accessToken(credentials);
  }

  return {
    async current() {
      if (!expiresSoon(credentials)) return accessToken(credentials);
      return refresh((stored) => expiresSoon(stored));
    },
    async refused(token) {
      // A token fresh from a refresh, refused too: refreshing again would not help.
      if (refreshedAfterRefusal.has(token))
        throw needsReconnect(platform, `${name} refused a freshly refreshed access token.`);
      const fresh = await refresh((stored) => stored.access_token === token);
      refreshedAfterRefusal.add(fresh);
      return fresh;
    },
  };
}

/**
 * `access` with the AccessTokens of its connection when it is an OAuth platform's (Bluesky's
 * and Mastodon's connectors keep their own sessions, and get none).
 */
export function withAccessTokens<A extends ConnectedAccountAccess>(
  deps: { pool: Pool; credentialsKey: CredentialsKey; oauth?: OAuthDeps },
  connection: { id: string; platform: Platform },
  access: A,
  signal?: AbortSignal,
): A {
  const { platform } = connection;
  if (!deps.oauth || !isOAuthPlatform(platform)) return access;
  const app = deps.oauth.apps?.[platform] ?? OAUTH_APPS[platform];
  const tokens = connectionTokens(
    { pool: deps.pool, credentialsKey: deps.credentialsKey, oauth: deps.oauth },
    { id: connection.id, platform, credentials: access.credentials },
    app,
    signal,
  );
  return { ...access, tokens };
}

/**
 * `access` that notes every token it hands out, and the secrets it held (its credentials' and
 * those tokens): a platform that echoes a token in a refusal must not have it kept or shown, in
 * a post's error, an account's last error or an event, whether it was stored or refreshed
 * during the attempt.
 */
export function keepingSecrets<A extends ConnectedAccountAccess>(
  access: A,
): { access: A; secrets: () => string[] } {
  const seen = new Set(secretValues(access.credentials));
  const noted = (token: string) => {
    seen.add(token);
    return token;
  };
  const { tokens } = access;
  return {
    access: tokens
      ? {
          ...access,
          tokens: {
            current: async () => noted(await tokens.current()),
            refused: async (token: string) => noted(await tokens.refused(token)),
          },
        }
      : access,
    secrets: () => [...seen],
  };
}
