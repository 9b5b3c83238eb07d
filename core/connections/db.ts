// SQL for connected platform accounts: one per brand and platform. The connectors issue adds
// the encrypted credentials and the `connect` command that checks them with the platform.
import type { Queryable } from '../db/pool.ts';
import type { Platform } from '../platforms/capabilities.ts';

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

/** Connects (or reconnects) the brand's account on a platform. */
export async function upsertConnectedAccount(
  db: Queryable,
  c: { accountId: string; brandId: string; platform: Platform; handle: string },
): Promise<ConnectedAccountRow> {
  const { rows } = await db.query<ConnectedAccountRow>(
    `insert into connected_accounts (account_id, brand_id, platform, handle)
     values ($1, $2, $3, $4)
     on conflict (brand_id, platform)
       do update set handle = excluded.handle, status = 'active', last_error = null
     returning *`,
    [c.accountId, c.brandId, c.platform, c.handle],
  );
  return rows[0]!;
}
