// Connected platform accounts as list_accounts shows them (credentials are never shown).
import { z } from 'zod';
import type { Queryable } from '../db/pool.ts';
import { PLATFORMS } from '../platforms/capabilities.ts';

export const ConnectedAccount = z.object({
  id: z.string(),
  brand_id: z.string(),
  platform: z.enum(PLATFORMS),
  handle: z.string(),
  status: z.enum(['active', 'needs_reconnect']).describe('Health: needs_reconnect fails posts.'),
  last_error: z.string().nullable(),
  created_at: z.string(),
});
export type ConnectedAccount = z.infer<typeof ConnectedAccount>;

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
