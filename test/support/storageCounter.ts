// The storage invariant: an account's counter equals the sum of its
// assets' bytes, and its reservation the sizes of its open chunked upload sessions.
import type { Pool } from '../../core/db/pool.ts';

export type StorageBalance = {
  used: number;
  assetBytes: number;
  reserved: number;
  sessionBytes: number;
  sessions: number;
};

/** The account's counters beside what its rows add up to. */
export async function storageBalance(pool: Pool, accountId: string): Promise<StorageBalance> {
  const { rows } = await pool.query(
    `select a.storage_used_bytes as used,
            (select coalesce(sum(bytes), 0) from assets where account_id = a.id) as asset_bytes,
            a.storage_reserved_bytes as reserved,
            (select coalesce(sum(size_bytes), 0) from upload_sessions where account_id = a.id)
              as session_bytes,
            (select count(*) from upload_sessions where account_id = a.id) as sessions
     from accounts a where a.id = $1`,
    [accountId],
  );
  const r = rows[0];
  return {
    used: Number(r.used),
    assetBytes: Number(r.asset_bytes),
    reserved: Number(r.reserved),
    sessionBytes: Number(r.session_bytes),
    sessions: Number(r.sessions),
  };
}
