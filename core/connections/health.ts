// Whether a brand's platforms can publish now, for the warning a post's answer carries. A
// plain draft's insert is one statement; reading the connections too would make every create
// two, so the reading is remembered per brand in this process for HEALTH_TTL_MS and shared by
// the requests of that second: a create that finds it runs its one statement, one that misses
// runs a second (on a second pool connection, beside the insert). A connection changed through
// this process's service is forgotten at once; a change made by another process (a worker
// marking needs_reconnect, another API process connecting) shows within HEALTH_TTL_MS.
import type { Queryable } from '../db/pool.ts';
import type { Platform } from '../kernel/platforms.ts';
import { connectionStatusesOf } from './db.ts';

export type ConnectionStatus = 'active' | 'needs_reconnect';

const HEALTH_TTL_MS = 1000;

/** A brand's connection on one platform, as a post's warnings need it. */
export type BrandConnection = {
  status: ConnectionStatus;
  handle: string;
  /** When it stops working without a reconnect (it cannot be renewed then); null: never said. */
  expiresAt: Date | null;
};

type Remembered = {
  db: Queryable;
  accountId: string;
  at: number;
  statuses: Promise<Map<Platform, BrandConnection>>;
};
const byBrand = new Map<string, Remembered>();

/** The brand's connections by platform (absent: none), as of at most HEALTH_TTL_MS ago. */
export function brandConnectionStatuses(
  db: Queryable,
  accountId: string,
  brandId: string,
): Remembered['statuses'] {
  const now = Date.now();
  const known = byBrand.get(brandId);
  if (known && known.db === db && known.accountId === accountId && now - known.at < HEALTH_TTL_MS)
    return known.statuses;
  const statuses = connectionStatusesOf(db, accountId, brandId).then(
    (rows) =>
      new Map(
        rows.map((r) => [
          r.platform,
          { status: r.status, handle: r.handle, expiresAt: r.expires_at },
        ]),
      ),
  );
  const entry = { db, accountId, at: now, statuses };
  // A failed reading is not remembered: the next request reads again.
  statuses.catch(() => {
    if (byBrand.get(brandId) === entry) byBrand.delete(brandId);
  });
  byBrand.set(brandId, entry);
  if (byBrand.size > 10_000) byBrand.delete(byBrand.keys().next().value!);
  return statuses;
}

/** A connection of the brand changed here: the next reading goes to the database. */
export function forgetBrandHealth(brandId: string): void {
  byBrand.delete(brandId);
}
