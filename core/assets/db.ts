// SQL for library assets (the media issue adds upload, storage and listing).
import type { Queryable } from '../db/pool.ts';
import type { MediaKind } from '../platforms/capabilities.ts';

export type AssetRef = { id: string; kind: MediaKind; mime: string };

/** The owned assets among `ids` (missing or foreign ones are simply absent). */
export async function findOwnedAssets(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<AssetRef[]> {
  const { rows } = await db.query<AssetRef>(
    'select id, kind, mime from assets where account_id = $1 and id = any($2::bigint[])',
    [accountId, ids],
  );
  return rows;
}

export async function insertAsset(
  db: Queryable,
  a: {
    accountId: string;
    brandId?: string | null;
    kind: MediaKind;
    mime: string;
    bytes?: number;
    filename?: string;
  },
): Promise<AssetRef> {
  const { rows } = await db.query<AssetRef>(
    `insert into assets (account_id, brand_id, kind, mime, bytes, filename)
     values ($1, $2, $3, $4, $5, $6) returning id, kind, mime`,
    [a.accountId, a.brandId ?? null, a.kind, a.mime, a.bytes ?? 0, a.filename ?? null],
  );
  return rows[0]!;
}
