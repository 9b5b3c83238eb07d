// The media library: raw image upload (checked whole with sharp, counted against the
// plan's storage quota), listing with cursor paging, reading and deleting bytes.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { requireOwnedBrand } from '../brands/service.ts';
import type { Pool, Queryable } from '../db/pool.ts';
import { DomainError, invalid, notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import { type Plan, STORAGE_QUOTA_BYTES } from '../kernel/plans.ts';
import type { MediaKind } from '../kernel/platforms.ts';
import { formatBytes } from '../kernel/sizes.ts';
import { NoFrame, videoFrame } from '../media/frame.ts';
import { MediaToolFailed, type MediaTools } from '../media/tools.ts';
import type { OutboundPolicy } from '../outbound/guard.ts';
import { type ByteRange, deleteQuietly, type Storage } from '../storage/storage.ts';
import {
  assetFile,
  deleteAssetRow,
  designPageIds,
  findOwnedAssets,
  firstPageIds,
  insertAssetWithinQuota,
  insertUploadedAsset,
  mediaStorageKeys,
  movePagesShownBy,
  recordThumbnailFailure,
  type StoredAsset,
  setThumbKey,
  storageKeyOf,
  storageUse,
  visualStorageKeys,
} from './db.ts';
import { checkImage } from './imageCheck.ts';
import { quotaExceeded } from './quota.ts';
import {
  type Asset,
  type AssetList,
  type AssetRef,
  type ListAssetsQuery,
  MAX_IMAGE_BYTES,
  type UploadQuery,
} from './schema.ts';
import { platformMediaSubject, signAssetUrl, verifySignedSubject } from './signedUrls.ts';
import { spoolToTemp, tooLarge } from './spool.ts';

export type MediaDeps = {
  pool: Pool;
  storage: Storage;
  publicBaseUrl: string;
  /** Where uploads are spooled before they are stored (beside the storage when it is fs). */
  tempDir?: string;
  /** Where URL ingest may fetch from. */
  outbound: OutboundPolicy;
  /** Signs expiring asset addresses (signed_url); none are given out without it. */
  urlKey?: Buffer;
  /** ffprobe and ffmpeg, with their time limit: every run on user media goes through them. */
  tools: MediaTools;
};
export type Owner = { accountId: string; plan: Plan; selectedBrandId?: string | null };

/** An asset's brand: the one given, else the one selected in the dashboard (CONTRACT.md). */
export const assetBrand = (owner: Owner, given: string | undefined): string | null =>
  given ?? owner.selectedBrandId ?? null;

export type AssetRow = {
  id: string;
  kind: Asset['kind'];
  mime: string;
  bytes: string;
  width: number | null;
  height: number | null;
  duration_s: string | null;
  filename: string | null;
  alt_text: string | null;
  brand_id: string | null;
  sha256: string | null;
  thumb_key: string | null;
  created_at: Date;
};

/** Where an asset's bytes are served (needs the owner's credential). */
export const assetContentUrl = (publicBaseUrl: string, id: string) =>
  `${publicBaseUrl}/v1/assets/${id}/content`;

export const toAsset = (r: AssetRow, deps: Pick<MediaDeps, 'publicBaseUrl' | 'urlKey'>): Asset => ({
  id: r.id,
  kind: r.kind,
  mime: r.mime,
  bytes: Number(r.bytes),
  width: r.width,
  height: r.height,
  duration_s: r.duration_s === null ? null : Number(r.duration_s),
  filename: r.filename,
  alt_text: r.alt_text,
  brand_id: r.brand_id,
  sha256: r.sha256,
  url: assetContentUrl(deps.publicBaseUrl, r.id),
  signed_url: deps.urlKey ? signAssetUrl(deps.publicBaseUrl, deps.urlKey, r.id) : null,
  thumbnail_url: r.kind === 'audio' ? null : `${deps.publicBaseUrl}/v1/assets/${r.id}/thumbnail`,
  created_at: r.created_at.toISOString(),
});

/**
 * Files stored bytes as an asset within the plan's quota, or answers 413. From a chunked
 * upload (`uploadId`), the session closes in the same transaction and its reservation becomes
 * the asset's bytes; 404 when it closed meanwhile.
 */
export async function fileWithinQuota(
  deps: MediaDeps,
  owner: Owner,
  asset: StoredAsset,
  uploadId?: string,
): Promise<AssetRow> {
  const quota = STORAGE_QUOTA_BYTES[owner.plan];
  const row = uploadId
    ? await insertUploadedAsset(deps.pool, asset, quota, uploadId)
    : await insertAssetWithinQuota(deps.pool, asset, quota);
  if (row === 'closed') throw notFound('Upload session');
  if (row) return row as AssetRow;
  throw await quotaExceeded(deps.pool, owner.accountId, {
    lead: `Storage quota of ${formatBytes(quota)} would be exceeded`,
  });
}

/** Stores a raw image upload as an asset. Video and audio are refused here. */
export async function uploadImage(
  deps: MediaDeps,
  owner: Owner,
  upload: { body: Readable; contentType: string; contentLength?: number } & UploadQuery,
): Promise<Asset> {
  // Media types are case-insensitive (IMAGE/PNG is image/png).
  const type = upload.contentType.toLowerCase();
  if (!type.startsWith('image/'))
    throw new DomainError(
      'unsupported_media_type',
      type.startsWith('video/')
        ? 'Videos go through the chunked upload: POST /v1/assets/upload/init, then parts, then finish.'
        : 'Send raw image bytes with an image Content-Type (image/png, image/jpeg, ...).',
    );
  if (upload.contentLength !== undefined && upload.contentLength > MAX_IMAGE_BYTES)
    throw tooLarge(`An image upload holds at most ${formatBytes(MAX_IMAGE_BYTES)}.`);
  if (upload.brand_id) await requireOwnedBrand(deps.pool, owner.accountId, upload.brand_id);

  const spooled = await spoolToTemp(
    upload.body,
    MAX_IMAGE_BYTES,
    `An image upload holds at most ${formatBytes(MAX_IMAGE_BYTES)}.`,
    deps.tempDir,
  );
  const keys: string[] = [];
  try {
    const { mime, width, height } = await checkImage(spooled.file, ['body']);
    const base = `assets/${owner.accountId}/${randomUUID()}`;
    await deps.storage.putFile(base, spooled.file);
    keys.push(base);

    const row = await fileWithinQuota(deps, owner, {
      accountId: owner.accountId,
      brandId: assetBrand(owner, upload.brand_id),
      kind: 'image',
      mime,
      bytes: spooled.bytes,
      filename: upload.filename ?? null,
      altText: upload.alt_text ?? null,
      sha256: spooled.sha256,
      width,
      height,
      durationS: null,
      storageKey: base,
    });
    keys.length = 0;
    return toAsset(row, deps);
  } finally {
    await rm(spooled.file, { force: true });
    await deleteQuietly(deps.storage, keys);
  }
}

const encodeCursor = (id: string) => Buffer.from(`a:${id}`).toString('base64url');
function decodeCursor(cursor: string): string {
  const raw = Buffer.from(cursor, 'base64url').toString();
  const id = raw.startsWith('a:') ? raw.slice(2) : '';
  if (!isId(id)) throw invalid(['query', 'cursor'], 'not a cursor this listing returned');
  return id;
}

export async function listAssets(
  deps: MediaDeps,
  owner: Owner,
  q: ListAssetsQuery,
): Promise<AssetList> {
  if (q.brand_id) await requireOwnedBrand(deps.pool, owner.accountId, q.brand_id);
  const after = q.cursor ? decodeCursor(q.cursor) : null;
  const { rows } = await deps.pool.query<AssetRow>(
    `select * from assets
     where account_id = $1
       and ($2::text is null or kind = $2)
       and ($3::bigint is null or brand_id = $3)
       and ($4::text is null or lower(filename) like '%' || lower($4) || '%')
       and ($5::bigint is null or id < $5)
     order by id desc limit $6`,
    [owner.accountId, q.kind ?? null, q.brand_id ?? null, q.q ?? null, after, q.limit + 1],
  );
  const page = rows.slice(0, q.limit);
  return {
    assets: page.map((r) => toAsset(r, deps)),
    next_cursor: rows.length > q.limit ? encodeCursor(page.at(-1)!.id) : null,
    storage: await storageOf(deps, owner),
  };
}

async function storageOf(deps: MediaDeps, owner: Owner) {
  const { used, reserved } = await storageUse(deps.pool, owner.accountId);
  return {
    used_bytes: used,
    reserved_bytes: reserved,
    quota_bytes: STORAGE_QUOTA_BYTES[owner.plan],
  };
}

async function ownedRow(deps: MediaDeps, accountId: string, id: string) {
  const { rows } = isId(id)
    ? await deps.pool.query<AssetRow & { storage_key: string | null }>(
        'select * from assets where id = $1 and account_id = $2',
        [id, accountId],
      )
    : { rows: [] };
  if (!rows[0]) throw notFound('Asset');
  return rows[0];
}

/** The asset's bytes for whoever holds a valid signed address. */
export async function readSignedAsset(deps: MediaDeps, id: string, expires: number, sig: string) {
  if (!deps.urlKey || !isId(id) || !verifySignedSubject(deps.urlKey, id, expires, sig))
    throw notFound('Asset');
  const file = await assetFile(deps.pool, id);
  if (!file) throw notFound('Asset');
  return { mime: file.mime, stream: await deps.storage.get(file.storageKey) };
}

/**
 * An asset a platform fetches through its day-long address (PublicMedia): its type, its
 * size, and its bytes or a range of them. A wrong, expired or one-hour signature, an unknown
 * asset and one deleted since are all the same 404.
 */
export async function readPlatformMedia(
  deps: MediaDeps,
  id: string,
  expires: number,
  sig: string,
): Promise<{ mime: string; size: number; open(range?: ByteRange): Promise<Readable> }> {
  const subject = platformMediaSubject(id);
  if (!deps.urlKey || !isId(id) || !verifySignedSubject(deps.urlKey, subject, expires, sig))
    throw notFound('Asset');
  const file = await assetFile(deps.pool, id);
  const size = file ? await deps.storage.size(file.storageKey) : undefined;
  if (!file || size === undefined) throw notFound('Asset');
  return { mime: file.mime, size, open: (range) => deps.storage.get(file.storageKey, range) };
}

/** The asset's bytes for its owner. */
export async function readAsset(deps: MediaDeps, accountId: string, id: string) {
  const row = await ownedRow(deps, accountId, id);
  if (!row.storage_key) throw notFound('Asset content');
  return { mime: row.mime, stream: await deps.storage.get(row.storage_key) };
}

/**
 * A 320 px WebP thumbnail of an image, or of a video's frame at one second (or mid-way in a
 * shorter one), made on first request and kept beside the original: uploads stay as fast as
 * storing the bytes, and media never viewed cost no thumbnail.
 */
export async function readThumbnail(deps: MediaDeps, accountId: string, id: string) {
  const row = await ownedRow(deps, accountId, id);
  if (row.kind === 'audio' || !row.storage_key) throw notFound('Thumbnail');
  const key = `${row.storage_key}.thumb.webp`;
  if (row.thumb_key !== key) {
    const still =
      row.kind === 'image'
        ? await streamToBuffer(await deps.storage.get(row.storage_key))
        : await videoStill(deps, row);
    const thumb = await sharp(still).rotate().resize(320, 320, { fit: 'inside' }).webp().toBuffer();
    await deps.storage.put(key, Readable.from([thumb]));
    await setThumbKey(deps.pool, row.id, key);
  }
  return { mime: 'image/webp', stream: await deps.storage.get(key) };
}

/**
 * Failed runs of ffmpeg after which a video's thumbnail is given up for good: a video whose
 * frame it cannot take would otherwise run it again on every request.
 */
export const THUMBNAIL_ATTEMPTS = 3;

/**
 * While a video has no thumbnail, its thumb_key counts the failed runs (`….thumb.failed-2`);
 * the key names no stored object, so deleting it, as the asset's deletion does, is harmless.
 */
const failedKey = (storageKey: string, n: number) => `${storageKey}.thumb.failed-${n}`;
const failuresIn = (thumbKey: string | null) =>
  Number(thumbKey?.match(/\.thumb\.failed-(\d+)$/)?.[1] ?? 0);

const noThumbnail = (failures: number) =>
  new DomainError(
    'no_thumbnail',
    `No thumbnail can be made of this video: ffmpeg could not take a frame of it (${failures} of ${THUMBNAIL_ATTEMPTS} attempts failed${failures >= THUMBNAIL_ATTEMPTS ? ', so it is not tried again' : ''}). Its bytes are still served at /content; upload a standard MP4 or WebM to get one.`,
  );

/**
 * A video's frame for its thumbnail, unless THUMBNAIL_ATTEMPTS runs have failed already; a
 * failed run is recorded on the asset before the refusal answers. Requests arriving together
 * may each run ffmpeg (each run bounded by FFMPEG_TIMEOUT_S, the requests by the budget);
 * failures recorded together count once.
 */
async function videoStill(deps: MediaDeps, row: AssetRow & { storage_key: string | null }) {
  const failures = failuresIn(row.thumb_key);
  if (failures >= THUMBNAIL_ATTEMPTS) throw noThumbnail(failures);
  try {
    return await frameOf(deps, row);
  } catch (err) {
    if (!(err instanceof MediaToolFailed || err instanceof NoFrame)) throw err;
    await recordThumbnailFailure(deps.pool, row.id, failedKey(row.storage_key!, failures + 1));
    throw noThumbnail(failures + 1);
  }
}

/** A video's frame; ffmpeg needs a seekable file, so the video is copied to a local one. */
async function frameOf(deps: MediaDeps, row: AssetRow & { storage_key: string | null }) {
  const spooled = await spoolToTemp(
    await deps.storage.get(row.storage_key!),
    Number(row.bytes),
    'size',
    deps.tempDir,
  );
  try {
    const duration = row.duration_s === null ? 0 : Number(row.duration_s);
    return await videoFrame(deps.tools, spooled.file, Math.min(1, duration / 2));
  } finally {
    await rm(spooled.file, { force: true });
  }
}

async function streamToBuffer(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Deletes the asset and its bytes; the storage it held is free at once. */
export async function deleteAsset(deps: MediaDeps, accountId: string, id: string): Promise<void> {
  const row = isId(id) ? await deleteAssetRow(deps.pool, accountId, id) : undefined;
  if (!row) throw notFound('Asset');
  for (const key of [row.storage_key, row.thumb_key]) if (key) await deps.storage.delete(key);
}

// What other concepts ask of the library: the assets a post or a layout names, where the
// bytes of the ones a render or an export reads are, and the pages a design's render filed.

/** The account's assets among `ids` (missing or foreign ones are simply absent). */
export async function ownedAssets(
  db_: Queryable,
  accountId: string,
  ids: string[],
): Promise<AssetRef[]> {
  return findOwnedAssets(db_, accountId, ids);
}

/** Where an asset's bytes are, by id alone (the caller has checked whose it is). */
export async function storageKeyOfAsset(
  db_: Queryable,
  assetId: string,
): Promise<string | undefined> {
  return storageKeyOf(db_, assetId);
}

/** Where the bytes of the account's stored images and videos among `ids` are (a render's). */
export async function storedVisuals(
  db_: Queryable,
  accountId: string,
  ids: string[],
): Promise<{ id: string; kind: 'image' | 'video'; storage_key: string }[]> {
  return visualStorageKeys(db_, accountId, ids);
}

/** The account's stored media among `ids`: kind, where the bytes are, size (an export's). */
export async function storedMedia(
  db_: Queryable,
  accountId: string,
  ids: string[],
): Promise<{ id: string; kind: MediaKind; storage_key: string; bytes: number }[]> {
  return mediaStorageKeys(db_, accountId, ids);
}

/** The pages a design's render filed, in page order. */
export async function pagesOfDesign(db_: Queryable, designId: string): Promise<string[]> {
  return designPageIds(db_, designId);
}

/** The first rendered page of each of these designs, by design id (their thumbnails). */
export async function firstPagesOf(
  db_: Queryable,
  designIds: string[],
): Promise<Map<string, string>> {
  return firstPageIds(db_, designIds);
}

/**
 * Hands the pages that `postIds` show from one design to another (a frozen copy of it): the
 * same bytes, still counted once.
 */
export async function handOverPagesShownBy(
  db_: Queryable,
  fromDesignId: string,
  toDesignId: string,
  postIds: string[],
): Promise<void> {
  await movePagesShownBy(db_, fromDesignId, toDesignId, postIds);
}

/** The bytes the account's library holds, and those its unfinished uploads reserve. */
export async function storageUseOf(
  db_: Queryable,
  accountId: string,
): Promise<{ used: number; reserved: number }> {
  return storageUse(db_, accountId);
}
