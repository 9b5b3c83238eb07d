// Idle connections kept alive: Threads' and Instagram's long-lived tokens are extended only
// when a job uses them, so a connection that publishes nothing for 60 days would die. A few
// times a day those expiring within RENEWAL_WINDOW_MS are renewed through the jobs' own
// locked refresh (tokens.ts), so a renewal and a publication never both spend one token.
import { PublicationError } from '../connectors/schema.ts';
import { OAUTH_APPS } from '../connectors/service.ts';
import type { Pool } from '../db/pool.ts';
import type { Platform } from '../kernel/platforms.ts';
import { isOAuthPlatform } from '../platformApps.ts';
import type { CredentialsKey } from './credentials.ts';
import { clearAccountError, connectionsExpiringBefore, recordAccountError } from './db.ts';
import {
  expiresWithin,
  type OAuthDeps,
  RENEWED_WITHOUT_REFRESH_TOKEN,
  refreshUnderLock,
} from './tokens.ts';

/**
 * How long before its expiry a token is renewed. Meta extends a token only once it is a day
 * old, so well inside its 60 days; ten days leave a failing renewal many runs to succeed.
 */
export const RENEWAL_WINDOW_MS = 10 * 86_400_000;

/** The most connections one run renews (the soonest to expire first); the next run goes on. */
export const RENEWALS_PER_RUN = 100;

/** Renewals in flight at once: each waits on one platform call, under its request timeout. */
const RENEWALS_AT_ONCE = 4;

/** What `renewIdleConnections` says on an account whose renewal failed for good. */
const RENEWING = 'Renewing the access token';

export type RenewalDeps = { pool: Pool; credentialsKey: CredentialsKey; oauth: OAuthDeps };

/** What became of one connection's renewal. */
export type Renewal = {
  id: string;
  platform: Platform;
  /**
   * `renewed`: a new token is stored; `unchanged`: nothing to do after all (another job
   * renewed it, or the platform would not extend it yet); `busy`: another job holds it, the
   * next run takes it; `refused`: the platform refused for good, it needs a reconnect;
   * `failed`: anything else (a timeout, a 5xx), tried again by the next run.
   */
  outcome: 'renewed' | 'unchanged' | 'busy' | 'refused' | 'failed';
  /** Why, for `refused` and `failed` (no secret in it). */
  reason?: string;
};

/**
 * Renews the access tokens that die unless used (RENEWED_WITHOUT_REFRESH_TOKEN) and expire
 * within RENEWAL_WINDOW_MS, at most `limit` of them. Each is renewed under its row lock and
 * stored in that transaction; a refusal for good marks it to reconnect with the reason; one
 * connection's failure never stops the others. Safe to rerun: a renewed token is out of the
 * window, and the lock re-reads the stored tokens before any call.
 */
export async function renewIdleConnections(
  deps: RenewalDeps,
  opts: { limit?: number; signal?: AbortSignal } = {},
): Promise<Renewal[]> {
  const now = Date.now();
  const due = await connectionsExpiringBefore(
    deps.pool,
    RENEWED_WITHOUT_REFRESH_TOKEN,
    new Date(now + RENEWAL_WINDOW_MS),
    opts.limit ?? RENEWALS_PER_RUN,
  );
  const done: Renewal[] = [];
  let next = 0;
  const lane = async () => {
    while (next < due.length && !opts.signal?.aborted) {
      const { id, platform } = due[next++]!;
      done.push(
        await renewOne(deps, { id, platform }, now, opts.signal).catch(
          (err): Renewal => ({ id, platform, outcome: 'failed', reason: (err as Error).message }),
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: RENEWALS_AT_ONCE }, lane));
  return done;
}

async function renewOne(
  deps: RenewalDeps,
  connection: { id: string; platform: Platform },
  now: number,
  signal?: AbortSignal,
): Promise<Renewal> {
  const { id, platform } = connection;
  // The query asks only for RENEWED_WITHOUT_REFRESH_TOKEN, all OAuth platforms; a row that is
  // not one has no OAuth app to renew it with.
  if (!isOAuthPlatform(platform))
    return { id, platform, outcome: 'failed', reason: 'It has no OAuth token to renew.' };
  const app = deps.oauth.apps?.[platform] ?? OAUTH_APPS[platform];
  let before: unknown;
  try {
    const outcome = await refreshUnderLock(
      deps,
      { id, platform },
      app,
      (stored) => {
        before = stored.access_token;
        return expiresWithin(stored, RENEWAL_WINDOW_MS, now);
      },
      signal,
    );
    if ('busy' in outcome) return { id, platform, outcome: 'busy' };
    if ('refused' in outcome) return { id, platform, outcome: 'refused', reason: outcome.refused };
    await clearAccountError(deps.pool, id, RENEWING);
    const renewed = outcome.tokens.access_token !== before;
    return { id, platform, outcome: renewed ? 'renewed' : 'unchanged' };
  } catch (err) {
    if (!(err instanceof PublicationError))
      return { id, platform, outcome: 'failed', reason: (err as Error).message };
    // A final failure that is no refusal of the token (an answer without one): said on the
    // account, whose token still dies at its time unless something changes.
    if (!err.retryable) await recordAccountError(deps.pool, id, `${RENEWING}: ${err.message}`);
    return { id, platform, outcome: 'failed', reason: err.message };
  }
}
