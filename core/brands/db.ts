// SQL for brands.
import type { Queryable } from '../db/pool.ts';

export type BrandRow = {
  id: string;
  uuid: string;
  account_id: string;
  name: string;
  timezone: string;
  created_at: Date;
};

export async function insertBrand(
  db: Queryable,
  b: { accountId: string; name: string; timezone: string },
): Promise<BrandRow> {
  const { rows } = await db.query<BrandRow>(
    'insert into brands (account_id, name, timezone) values ($1, $2, $3) returning *',
    [b.accountId, b.name, b.timezone],
  );
  return rows[0]!;
}

export async function listBrands(db: Queryable, accountId: string): Promise<BrandRow[]> {
  const { rows } = await db.query<BrandRow>(
    'select * from brands where account_id = $1 order by id',
    [accountId],
  );
  return rows;
}

/** The brand when `accountId` owns it; undefined otherwise (callers answer 404). */
export async function findOwnedBrand(db: Queryable, accountId: string, brandId: string) {
  const { rows } = await db.query<BrandRow>(
    'select * from brands where id = $1 and account_id = $2',
    [brandId, accountId],
  );
  return rows[0];
}

/** The account's brand with this public uuid; undefined otherwise (callers answer 404). */
export async function findOwnedBrandByUuid(db: Queryable, accountId: string, uuid: string) {
  const { rows } = await db.query<BrandRow>(
    'select * from brands where uuid = $1 and account_id = $2',
    [uuid, accountId],
  );
  return rows[0];
}
