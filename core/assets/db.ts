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

export type StoredAsset = {
  accountId: string;
  brandId: string | null;
  kind: MediaKind;
  mime: string;
  bytes: number;
  filename: string | null;
  sha256: string;
  width: number | null;
  height: number | null;
  durationS: number | null;
  storageKey: string;
  altText?: string | null;
};

/**
 * Files stored bytes as an asset, counting them against the quota in the same statement.
 * The account row's update is atomic, so concurrent uploads never overshoot the quota.
 * Undefined when the quota would be exceeded.
 */
export async function insertAssetWithinQuota(db: Queryable, a: StoredAsset, quota: number) {
  const { rows } = await db.query({
    name: 'insert_asset_within_quota',
    text: `
      with acct as (
        update accounts set storage_used_bytes = storage_used_bytes + $5
        where id = $1 and storage_used_bytes + $5 <= $12
        returning id
      )
      insert into assets (account_id, brand_id, kind, mime, bytes, filename, sha256, width, height,
                          duration_s, storage_key, alt_text)
      select acct.id, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $13 from acct
      returning *`,
    values: [
      a.accountId,
      a.brandId,
      a.kind,
      a.mime,
      a.bytes,
      a.filename,
      a.sha256,
      a.width,
      a.height,
      a.durationS,
      a.storageKey,
      quota,
      a.altText ?? null,
    ],
  });
  return rows[0];
}

/** Deletes an owned asset and gives its bytes back to the account; its row, if it existed. */
export async function deleteAssetRow(db: Queryable, accountId: string, id: string) {
  const { rows } = await db.query<{ storage_key: string | null; thumb_key: string | null }>(
    `with d as (
       delete from assets where id = $1 and account_id = $2
       returning account_id, bytes, storage_key, thumb_key
     ), a as (
       update accounts set storage_used_bytes = storage_used_bytes - d.bytes
       from d where accounts.id = d.account_id
     )
     select storage_key, thumb_key from d`,
    [id, accountId],
  );
  return rows[0];
}

export async function storageUsedBytes(db: Queryable, accountId: string): Promise<number> {
  const { rows } = await db.query<{ used: string }>(
    'select storage_used_bytes as used from accounts where id = $1',
    [accountId],
  );
  return Number(rows[0]?.used ?? 0);
}

/** Test and fixture helper: an asset row without stored bytes. */
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
    `with a as (
       insert into assets (account_id, brand_id, kind, mime, bytes, filename)
       values ($1, $2, $3, $4, $5, $6) returning id, kind, mime, account_id, bytes
     ), u as (
       update accounts set storage_used_bytes = storage_used_bytes + a.bytes
       from a where accounts.id = a.account_id
     )
     select id, kind, mime from a`,
    [a.accountId, a.brandId ?? null, a.kind, a.mime, a.bytes ?? 0, a.filename ?? null],
  );
  return rows[0]!;
}
