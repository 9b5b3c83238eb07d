// SQL for competitors (sql/028_competitors.sql).
import type { Queryable } from '../db/pool.ts';

export type CompetitorRow = {
  id: string;
  brand_id: string;
  platform: string;
  handle: string;
  created_at: Date;
};

const COLUMNS = 'id::text, brand_id::text, platform, handle, created_at';

/**
 * Adds a profile unless the brand tracks `max` already (the brand row locked meanwhile, so
 * two adds cannot both pass the count) or tracks this one: 'limit_reached' or 'exists'.
 */
export async function insertCompetitorWithin(
  db: Queryable,
  max: number,
  c: { accountId: string; brandId: string; platform: string; handle: string },
): Promise<CompetitorRow | 'limit_reached' | 'exists'> {
  await db.query('select 1 from brands where id = $1 for update', [c.brandId]);
  const { rows: count } = await db.query<{ n: number }>(
    'select count(*)::int as n from competitors where brand_id = $1',
    [c.brandId],
  );
  if (count[0]!.n >= max) return 'limit_reached';
  const { rows } = await db.query<CompetitorRow>(
    `insert into competitors (account_id, brand_id, platform, handle) values ($1, $2, $3, $4)
     on conflict (brand_id, platform, handle) do nothing
     returning ${COLUMNS}`,
    [c.accountId, c.brandId, c.platform, c.handle],
  );
  return rows[0] ?? 'exists';
}

export async function listCompetitorRows(
  db: Queryable,
  accountId: string,
  brandId: string,
): Promise<CompetitorRow[]> {
  const { rows } = await db.query<CompetitorRow>(
    `select ${COLUMNS} from competitors where account_id = $1 and brand_id = $2 order by id`,
    [accountId, brandId],
  );
  return rows;
}

/** Removes the account's profile; false when it has none of that id. */
export async function deleteCompetitorRow(db: Queryable, accountId: string, id: string) {
  const { rowCount } = await db.query('delete from competitors where id = $1 and account_id = $2', [
    id,
    accountId,
  ]);
  return (rowCount ?? 0) > 0;
}
