// Reading through a connected account (metrics, trends, a competitor's posts): each reading
// job opens the account's credentials for its connector (keeping a refreshed session) and
// sorts the platform's failures the same way (and a reading that works again clears the error
// it said on the account). A throttle with Retry-After is answered for the
// job to queue itself again after it; a transient failure is thrown, for the job's retries; a
// final refusal is said on the account (a refused credential marks it to reconnect, as a
// publication would) and the reading is skipped.
import type { ConnectedAccountAccess, Connector, Connectors } from '../connectors/schema.ts';
import { PublicationError } from '../connectors/schema.ts';
import { withoutSecrets } from '../connectors/service.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import type { Platform } from '../kernel/platforms.ts';
import { type CredentialsKey, openedAccess } from './credentials.ts';
import {
  clearAccountError,
  markNeedsReconnect,
  recordAccountError,
  saveSealedCredentials,
} from './db.ts';
import { keepingSecrets, type OAuthDeps, withAccessTokens } from './tokens.ts';

export type ReadingDeps = {
  pool: Pool;
  connectors: Connectors;
  credentialsKey?: CredentialsKey;
  /** Refreshes OAuth platforms' access tokens; without it, their connectors get no `tokens`. */
  oauth?: OAuthDeps;
};

/** What a reading did: its own result, or why it read nothing. */
export type Reading<T extends object> =
  | ({ outcome: 'read' } & T)
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'throttled'; retryAfterMs: number };

type ReadMethod =
  | 'postMetrics'
  | 'profilePosts'
  | 'trends'
  | 'inbound'
  | 'reply'
  | 'search'
  | 'act';
type ReadingAccount = {
  id: string;
  platform: Platform;
  handle: string;
  credentials: Buffer | null;
};

/**
 * Runs `read` with the account's connector and opened credentials. `doing` names the reading
 * in what is said on the account ("Collecting metrics: Mastodon answered 401: ...").
 */
export async function readThrough<K extends ReadMethod, T extends object>(
  deps: ReadingDeps,
  account: ReadingAccount,
  method: K,
  doing: string,
  read: (connector: Required<Pick<Connector, K>>, access: ConnectedAccountAccess) => Promise<T>,
): Promise<Reading<T>> {
  const connector = deps.connectors[account.platform] as Required<Pick<Connector, K>> | undefined;
  if (!connector?.[method])
    return { outcome: 'skipped', reason: `${doing} is not supported on ${account.platform} yet` };
  if (!account.credentials || !deps.credentialsKey)
    return { outcome: 'skipped', reason: 'no credentials to read with' };
  const held = keepingSecrets(
    withAccessTokens(
      { pool: deps.pool, credentialsKey: deps.credentialsKey, oauth: deps.oauth },
      account,
      openedAccess(
        deps.credentialsKey,
        { handle: account.handle, credentials: account.credentials },
        (sealed) => saveSealedCredentials(deps.pool, account.id, sealed),
      ),
    ),
  );
  try {
    const done = await read(connector, held.access);
    await clearAccountError(deps.pool, account.id, doing);
    return { outcome: 'read', ...done };
  } catch (err) {
    if (!(err instanceof PublicationError)) throw err;
    if (err.retryAt !== undefined)
      return {
        outcome: 'throttled',
        retryAfterMs: Math.max(0, err.retryAt.getTime() - Date.now()),
      };
    if (err.retryAfterMs !== undefined)
      return { outcome: 'throttled', retryAfterMs: err.retryAfterMs };
    if (err.retryable) throw err;
    // What the platform said may quote a token it refused: never kept or shown in clear.
    const reason = withoutSecrets(err.message, held.secrets());
    await noteReadRefusal(deps.pool, account.id, doing, err, reason);
    return { outcome: 'skipped', reason };
  }
}

/**
 * A platform's final refusal of a read, said on the account that read: a refused credential
 * marks it to reconnect, as a publication would.
 */
export async function noteReadRefusal(
  db: Queryable,
  connectedAccountId: string,
  doing: string,
  err: PublicationError,
  reason = err.message,
) {
  const said = `${doing}: ${reason}`;
  if (err.reconnect) await markNeedsReconnect(db, connectedAccountId, said);
  else await recordAccountError(db, connectedAccountId, said);
}
