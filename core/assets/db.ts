// SQL for library assets, rendered pages and chunked upload sessions. Every statement that
// adds or removes an asset's bytes keeps accounts.storage_used_bytes equal to the sum of the
// account's asset bytes, and storage_reserved_bytes equal to its open sessions' sizes.
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import type { MediaKind } from '../kernel/platforms.ts';
import type { AssetRef } from './schema.ts';

export type { AssetRef };

/** The owned assets among `ids` (missing or foreign ones are simply absent). */
export async function findOwnedAssets(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<AssetRef[]> {
  const { rows } = await db.query<AssetRef>(
    `select id, kind, mime, design_id::text, bytes::float8 as bytes,
            duration_s::float8 as duration_s, width, height
     from assets where account_id = $1 and id = any($2::bigint[])`,
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
 * Files stored bytes as an asset, counting them against the quota in the same statement
 * (bytes reserved by open chunked uploads count too). The account row's update is atomic, so
 * concurrent uploads never overshoot the quota. Undefined when the quota would be exceeded.
 */
export async function insertAssetWithinQuota(db: Queryable, a: StoredAsset, quota: number) {
  const { rows } = await db.query({
    name: 'insert_asset_within_quota',
    text: `
      with acct as (
        update accounts set storage_used_bytes = storage_used_bytes + $5
        where id = $1 and storage_used_bytes + storage_reserved_bytes + $5 <= $12
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

/** Bytes the account's assets hold, and bytes its open chunked uploads have reserved. */
export async function storageUse(db: Queryable, accountId: string) {
  const { rows } = await db.query<{ used: string; reserved: string }>(
    `select storage_used_bytes as used, storage_reserved_bytes as reserved
     from accounts where id = $1`,
    [accountId],
  );
  return { used: Number(rows[0]?.used ?? 0), reserved: Number(rows[0]?.reserved ?? 0) };
}

/** When the account's first open upload session expires (or expired, not yet cleaned up). */
export async function firstUploadExpiry(db: Queryable, accountId: string) {
  const { rows } = await db.query<{ at: Date | null }>(
    'select min(expires_at) as at from upload_sessions where account_id = $1',
    [accountId],
  );
  return rows[0]?.at ?? undefined;
}

/** Rolls a transaction back from inside when a quota check fails. */
class OverQuota extends Error {}

/**
 * Files the asset a chunked upload produced: the session closes and its reservation becomes
 * the asset's bytes, in one transaction. 'closed' when the session was closed meanwhile (a
 * second finish at the same time, or expired and cleaned); undefined over the quota.
 */
export async function insertUploadedAsset(
  pool: Pool,
  a: StoredAsset,
  quota: number,
  uploadId: string,
) {
  return withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query(
      `with s as (
         delete from upload_sessions where id = $1 and account_id = $2 returning size_bytes
       )
       update accounts set storage_reserved_bytes = storage_reserved_bytes - s.size_bytes
       from s where accounts.id = $2`,
      [uploadId, a.accountId],
    );
    if (!rowCount) return 'closed' as const;
    const row = await insertAssetWithinQuota(tx, a, quota);
    if (!row) throw new OverQuota();
    return row;
  }).catch((err) => {
    if (err instanceof OverQuota) return undefined;
    throw err;
  });
}

/**
 * Opens a chunked upload session, reserving its announced size against the quota in the same
 * statement (atomic, as for assets). Undefined when the reservation would exceed the quota.
 */
export async function insertUploadSession(
  db: Queryable,
  s: {
    accountId: string;
    brandId: string | null;
    filename: string;
    sizeBytes: number;
    partBytes: number;
  },
  quota: number,
) {
  const { rows } = await db.query<{ id: string; expires_at: Date }>(
    `with acct as (
       update accounts set storage_reserved_bytes = storage_reserved_bytes + $4
       where id = $1 and storage_used_bytes + storage_reserved_bytes + $4 <= $6
       returning id
     )
     insert into upload_sessions (account_id, brand_id, filename, size_bytes, part_bytes)
     select acct.id, $2, $3, $4, $5 from acct
     returning id, expires_at`,
    [s.accountId, s.brandId, s.filename, s.sizeBytes, s.partBytes, quota],
  );
  return rows[0];
}

export type UploadSessionRow = {
  id: string;
  brand_id: string | null;
  filename: string;
  size_bytes: string;
  part_bytes: number;
};

/** The account's open (unexpired) upload session. */
export async function findOpenUploadSession(db: Queryable, accountId: string, uploadId: string) {
  const { rows } = await db.query<UploadSessionRow>(
    `select id, brand_id, filename, size_bytes, part_bytes from upload_sessions
     where id = $1 and account_id = $2 and expires_at > now()`,
    [uploadId, accountId],
  );
  return rows[0];
}

/**
 * Records a received chunk (a repeated index replaces its record); false when the session is
 * gone by now (finished, or expired and cleaned while the chunk was arriving).
 */
export async function recordUploadPart(
  db: Queryable,
  part: { uploadId: string; index: number; bytes: number },
): Promise<boolean> {
  try {
    const { rowCount } = await db.query(
      `insert into upload_parts (upload_id, index, bytes)
       select id, $2, $3 from upload_sessions where id = $1
       on conflict (upload_id, index) do update set bytes = excluded.bytes, received_at = now()`,
      [part.uploadId, part.index, part.bytes],
    );
    return rowCount === 1;
  } catch (err) {
    // The session was deleted between the select and the foreign key check.
    if ((err as { code?: string }).code === '23503') return false;
    throw err;
  }
}

/** The chunks recorded for a session, by index. */
export async function uploadPartSizes(db: Queryable, uploadId: string) {
  const { rows } = await db.query<{ index: number; bytes: number }>(
    'select index, bytes from upload_parts where upload_id = $1 order by index',
    [uploadId],
  );
  return rows;
}

/** Closes every expired upload session and gives its reservation back; their ids. */
export async function deleteExpiredUploadSessions(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `with gone as (
       delete from upload_sessions where expires_at <= now()
       returning id, account_id, size_bytes
     ), released as (
       update accounts a set storage_reserved_bytes = a.storage_reserved_bytes - g.bytes
       from (select account_id, sum(size_bytes) as bytes from gone group by account_id) g
       where a.id = g.account_id
     )
     select id::text from gone`,
  );
  return rows.map((r) => r.id);
}

/** Which of `ids` name an upload session (open or expired but not yet cleaned). */
export async function existingUploadSessions(db: Queryable, ids: string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ id: string }>(
    'select id::text from upload_sessions where id = any($1::uuid[])',
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

export type RenderedPage = { key: string; bytes: number };

/**
 * Replaces a design's rendered pages with `pages`, in the caller's transaction, keeping the
 * account's counter right: the old pages' bytes are given back, the new ones counted. A new
 * render that would not fit the quota (bytes reserved by uploads included) answers undefined
 * after changing rows: the caller must roll back. A render that does not grow always fits.
 *
 * An old page still attached to a post after the caller detached the design's own unpublished
 * posts (a post publishing meanwhile, a post moved to its own copy that has not rendered yet,
 * or an attachment made before pages were refused in asset_ids) is kept as a library image
 * rather than deleted, so a re-render never takes a post's media away; it stays counted.
 */
export async function replaceDesignPages(
  db: Queryable,
  d: {
    accountId: string;
    brandId: string;
    designId: string;
    width: number;
    height: number;
    pages: RenderedPage[];
  },
  quota: number,
): Promise<{ pageIds: string[]; freedKeys: string[] } | undefined> {
  await db.query(
    `update assets set design_id = null
     where design_id = $1 and exists (select 1 from post_assets pa where pa.asset_id = assets.id)`,
    [d.designId],
  );
  const { rows: old } = await db.query<{
    bytes: string;
    storage_key: string | null;
    thumb_key: string | null;
  }>('delete from assets where design_id = $1 returning bytes, storage_key, thumb_key', [
    d.designId,
  ]);
  const freed = old.reduce((sum, r) => sum + Number(r.bytes), 0);
  const added = d.pages.reduce((sum, p) => sum + p.bytes, 0);
  const counted = await db.query(
    `update accounts set storage_used_bytes = storage_used_bytes - $2::bigint + $3::bigint
     where id = $1
       and ($3::bigint <= $2::bigint
            or storage_used_bytes + storage_reserved_bytes - $2::bigint + $3::bigint <= $4)`,
    [d.accountId, freed, added, quota],
  );
  if (!counted.rowCount) return undefined;
  const { rows: pages } = await db.query<{ id: string }>(
    `insert into assets (account_id, brand_id, kind, mime, bytes, filename, width, height,
                         storage_key, design_id)
     select $1, $2, 'image', 'image/png', b,
            'design-' || $3::text || '-page-' || lpad(n::text, 2, '0') || '.png',
            $4, $5, k, $3::bigint
     from unnest($6::text[], $7::bigint[]) with ordinality as t(k, b, n)
     order by n
     returning id::text`,
    [
      d.accountId,
      d.brandId,
      d.designId,
      d.width,
      d.height,
      d.pages.map((p) => p.key),
      d.pages.map((p) => p.bytes),
    ],
  );
  return {
    pageIds: pages.map((p) => p.id),
    freedKeys: old.flatMap((r) => [r.storage_key, r.thumb_key].filter((k): k is string => !!k)),
  };
}

/** The rendered pages of a design, in page order. */
export async function designPageIds(db: Queryable, designId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'select id::text from assets where design_id = $1 order by filename, id',
    [designId],
  );
  return rows.map((r) => r.id);
}

/** The first rendered page of each of these designs (by designPageIds' order), by design id. */
export async function firstPageIds(
  db: Queryable,
  designIds: string[],
): Promise<Map<string, string>> {
  if (!designIds.length) return new Map();
  const { rows } = await db.query<{ design_id: string; id: string }>(
    `select distinct on (design_id) design_id::text, id::text from assets
      where design_id = any($1::bigint[]) order by design_id, filename, id`,
    [designIds],
  );
  return new Map(rows.map((r) => [r.design_id, r.id]));
}

/**
 * Hands the pages that `postIds` show from one design to another (a frozen copy of it): the
 * same bytes, still counted once.
 */
export async function movePagesShownBy(
  db: Queryable,
  fromDesignId: string,
  toDesignId: string,
  postIds: string[],
): Promise<void> {
  await db.query(
    `update assets set design_id = $2
     where design_id = $1
       and id in (select asset_id from post_assets where post_id = any($3::bigint[]))`,
    [fromDesignId, toDesignId, postIds],
  );
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

/** Where the bytes of the account's stored images and videos among `ids` are (a render's photos and frames). */
export async function visualStorageKeys(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<{ id: string; kind: 'image' | 'video'; storage_key: string }[]> {
  const { rows } = await db.query<{ id: string; kind: 'image' | 'video'; storage_key: string }>(
    `select id::text, kind, storage_key from assets
     where account_id = $1 and kind in ('image', 'video') and id = any($2::bigint[])
       and storage_key is not null`,
    [accountId, ids],
  );
  return rows;
}

/**
 * An asset's type and where its bytes are, by id alone (for a signed address, whose signature
 * the caller has checked); undefined when there is no such asset or it holds no bytes.
 */
export async function assetFile(
  db: Queryable,
  assetId: string,
): Promise<{ mime: string; storageKey: string } | undefined> {
  const { rows } = await db.query<{ mime: string; storage_key: string | null }>(
    'select mime, storage_key from assets where id = $1',
    [assetId],
  );
  const row = rows[0];
  return row?.storage_key ? { mime: row.mime, storageKey: row.storage_key } : undefined;
}

/** Where an asset's bytes are, by id alone (the caller has checked whose it is). */
export async function storageKeyOf(db: Queryable, assetId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ storage_key: string | null }>(
    'select storage_key from assets where id = $1',
    [assetId],
  );
  return rows[0]?.storage_key ?? undefined;
}

/** The account's stored media among `ids`: kind and where the bytes are (a video export's). */
export async function mediaStorageKeys(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<{ id: string; kind: MediaKind; storage_key: string; bytes: number }[]> {
  const { rows } = await db.query<{
    id: string;
    kind: MediaKind;
    storage_key: string;
    bytes: number;
  }>(
    `select id::text, kind, storage_key, bytes::float8 as bytes from assets
     where account_id = $1 and id = any($2::bigint[]) and storage_key is not null`,
    [accountId, ids],
  );
  return rows;
}

/**
 * Records a failed thumbnail run as the asset's thumb_key (`marker`), unless a thumbnail was
 * made meanwhile (a key not a failure marker).
 */
export async function recordThumbnailFailure(
  db: Queryable,
  assetId: string,
  marker: string,
): Promise<void> {
  await db.query(
    `update assets set thumb_key = $2
     where id = $1 and (thumb_key is null or thumb_key like '%.thumb.failed-%')`,
    [assetId, marker],
  );
}

/** Records the asset's thumbnail, made and stored under `key`. */
export async function setThumbKey(db: Queryable, assetId: string, key: string): Promise<void> {
  await db.query('update assets set thumb_key = $2 where id = $1', [assetId, key]);
}
