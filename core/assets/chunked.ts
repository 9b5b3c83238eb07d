// Chunked upload of video (and audio): init fixes the chunk size and reserves the announced
// size against the quota, parts arrive in any order (a repeated part replaces itself; each
// index holds at most its share of the announced size), finish joins them in order into one
// file, probes it with ffprobe and files it as an asset. Bytes stream through; memory stays flat.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { requireOwnedBrand } from '../brands/service.ts';
import { conflict, invalid, notFound } from '../kernel/errors.ts';
import { STORAGE_QUOTA_BYTES } from '../kernel/plans.ts';
import { formatBytes } from '../kernel/sizes.ts';
import { probeMedia } from '../media/probe.ts';
import { ACCEPTED_FORMATS, MediaToolFailed } from '../media/tools.ts';
import { isOutOfSpace } from '../storage/space.ts';
import type { Storage } from '../storage/storage.ts';
import {
  deleteExpiredUploadSessions,
  existingUploadSessions,
  findOpenUploadSession,
  insertUploadSession,
  recordUploadPart,
  uploadPartSizes,
} from './db.ts';
import { assetBrand, fileWithinQuota, type MediaDeps, type Owner, toAsset } from './library.ts';
import { quotaExceeded } from './quota.ts';
import {
  type Asset,
  type FinishUploadInput,
  type InitUploadInput,
  MAX_PARTS,
  type PartQuery,
} from './schema.ts';
import { byteMeter, spoolToTemp, tooLarge } from './spool.ts';

const MIN_PART_BYTES = 8 * 1024 * 1024;
const UPLOADS = 'uploads/';
const uploadFolder = (uploadId: string) => `${UPLOADS}${uploadId}/`;
const partKey = (uploadId: string, index: number) => `${uploadFolder(uploadId)}${index}`;

/**
 * How the announced size splits: `parts` chunks, chunk `i` holding at most `limit(i)` bytes
 * (part_bytes, the last one the rest). With every chunk within its limit and the total equal
 * to the size, every chunk is exactly its limit, so a session never stores more than it
 * announced and reserved.
 */
export function chunking(sizeBytes: number, partBytes: number) {
  const parts = Math.ceil(sizeBytes / partBytes);
  return { parts, limit: (i: number) => Math.min(partBytes, sizeBytes - i * partBytes) };
}

export async function initUpload(deps: MediaDeps, owner: Owner, input: InitUploadInput) {
  if (input.brand_id) await requireOwnedBrand(deps.pool, owner.accountId, input.brand_id);
  // Big enough that the file fits in 80 chunks, and never smaller than 8 MB.
  const partBytes = Math.max(MIN_PART_BYTES, Math.ceil(input.size_bytes / MAX_PARTS));
  const quota = STORAGE_QUOTA_BYTES[owner.plan];
  const session = await insertUploadSession(
    deps.pool,
    {
      accountId: owner.accountId,
      brandId: assetBrand(owner, input.brand_id),
      filename: input.filename,
      sizeBytes: input.size_bytes,
      partBytes,
    },
    quota,
  );
  if (!session)
    throw await quotaExceeded(deps.pool, owner.accountId, {
      lead: `Storage quota of ${formatBytes(quota)} would be exceeded by size_bytes ${input.size_bytes} (${formatBytes(input.size_bytes)})`,
    });
  const uploadId = session.id;
  const { parts, limit } = chunking(input.size_bytes, partBytes);
  const expiresAt = session.expires_at;
  // With a bucket, the client may send the chunks straight to it instead of through the API;
  // each address takes exactly its chunk's size.
  const grant = deps.storage.presignPuts
    ? {
        method: 'PUT' as const,
        part_urls: await deps.storage.presignPuts(
          Array.from({ length: parts }, (_, i) => ({ key: partKey(uploadId, i), bytes: limit(i) })),
          Math.max(60, Math.floor((expiresAt.getTime() - Date.now()) / 1000)),
        ),
        expires_at: expiresAt.toISOString(),
      }
    : undefined;
  return {
    upload_id: uploadId,
    part_bytes: partBytes,
    parts,
    expires_at: expiresAt.toISOString(),
    ...(grant ? { grant } : {}),
  };
}

/**
 * The chunks received, in index order: those sent through the API (recorded as they came)
 * and, for the indexes still missing, those sent straight to the bucket under a grant.
 */
async function receivedParts(deps: MediaDeps, sessionId: string, expected: number) {
  const rows = await uploadPartSizes(deps.pool, sessionId);
  const byIndex = new Map(rows.map((r) => [r.index, r.bytes]));
  if (deps.storage.presignPuts)
    for (let i = 0; i < Math.min(expected, MAX_PARTS); i++) {
      if (byIndex.has(i)) continue;
      const size = await deps.storage.size(partKey(sessionId, i));
      if (size !== undefined) byIndex.set(i, size);
    }
  return [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, bytes]) => ({ index, bytes }));
}

async function requireSession(deps: MediaDeps, accountId: string, uploadId: string) {
  const session = await findOpenUploadSession(deps.pool, accountId, uploadId);
  if (!session) throw notFound('Upload session');
  return session;
}

/**
 * Stores one chunk; sending the same index again replaces it (idempotent retries). An index
 * past the chunks the announced size makes, or a chunk larger than its share, is refused
 * before anything is stored: the session's bytes stay within what init reserved.
 */
export async function putPart(
  deps: MediaDeps,
  owner: Owner,
  q: PartQuery,
  body: Readable,
  contentLength?: number,
) {
  const session = await requireSession(deps, owner.accountId, q.upload_id);
  const size = Number(session.size_bytes);
  const { parts, limit } = chunking(size, session.part_bytes);
  if (q.index >= parts)
    throw invalid(
      ['query', 'index'],
      `size_bytes ${size} in chunks of part_bytes ${session.part_bytes} makes ${parts} chunk(s): ` +
        `index is 0-${parts - 1}`,
    );
  const most = limit(q.index);
  const message =
    most < session.part_bytes
      ? `Chunk ${q.index} is the last: it holds the remaining ${most} bytes of size_bytes ${size}.`
      : `A part holds at most part_bytes = ${session.part_bytes} (${formatBytes(session.part_bytes)}).`;
  // Refused before reading when the size is announced; counted as it streams otherwise.
  if (contentLength !== undefined && contentLength > most) throw tooLarge(message);
  const meter = byteMeter(most, message);
  const key = partKey(session.id, q.index);
  // One pipeline owns the streams from the first byte: a chunk over its share fails it even
  // while the storage is still making its folder (a bare pipe() would throw that error where
  // nothing listens, and take the process down).
  const counted = new PassThrough();
  const reading = pipeline(body, meter.stream, counted);
  const storing = deps.storage.put(key, counted);
  try {
    await Promise.all([storing, reading]);
  } catch (err) {
    body.destroy();
    // Cut from the storage's side (a full disk): the reading saw the storage's raw error or
    // its stream end early; the storage's own answer (507, its temporary file gone) says why.
    const code = (err as NodeJS.ErrnoException).code;
    if (isOutOfSpace(err) || code === 'ERR_STREAM_PREMATURE_CLOSE')
      throw await storing.then(
        () => err,
        (stored: unknown) => stored,
      );
    throw err;
  }
  const recorded = await recordUploadPart(deps.pool, {
    uploadId: session.id,
    index: q.index,
    bytes: meter.bytes(),
  });
  if (!recorded) {
    // Finished or cleaned while the chunk arrived: nothing may keep it.
    await deps.storage.delete(key).catch(() => undefined);
    throw notFound('Upload session');
  }
  return { upload_id: session.id, index: q.index, bytes: meter.bytes() };
}

/** The parts in order, as one stream. */
async function* joined(storage: Storage, uploadId: string, parts: number): AsyncIterable<Buffer> {
  for (let i = 0; i < parts; i++)
    for await (const chunk of await storage.get(partKey(uploadId, i))) yield chunk;
}

/** Removes every chunk of a closed session; what a failure leaves, the hourly sweep takes. */
async function dropParts(storage: Storage, uploadId: string) {
  await storage.deletePrefix(uploadFolder(uploadId)).catch(() => undefined);
}

/**
 * Sessions this process is finishing: a finish asked again while one runs is refused rather
 * than joining, copying and probing the same bytes once more (each finish spools the whole
 * file). Another API process could still finish the same session once; filing the asset
 * closes the session, so only one of them files it.
 */
const finishing = new Set<string>();

export async function finishUpload(
  deps: MediaDeps,
  owner: Owner,
  input: FinishUploadInput,
): Promise<Asset> {
  const session = await requireSession(deps, owner.accountId, input.upload_id);
  if (finishing.has(session.id))
    throw conflict('upload_finishing', 'This upload is being finished already: wait for it.');
  finishing.add(session.id);
  try {
    return await finishSession(deps, owner, session, input);
  } finally {
    finishing.delete(session.id);
  }
}

async function finishSession(
  deps: MediaDeps,
  owner: Owner,
  session: Awaited<ReturnType<typeof requireSession>>,
  input: FinishUploadInput,
): Promise<Asset> {
  const { limit } = chunking(Number(session.size_bytes), session.part_bytes);
  const parts = await receivedParts(deps, session.id, input.parts);
  const received = parts.map((p) => p.index);
  const oversized = parts.find((p) => p.bytes > limit(p.index));
  if (oversized)
    throw invalid(
      ['body', 'parts'],
      `chunk ${oversized.index} holds ${oversized.bytes} bytes; it may hold ${limit(oversized.index)}`,
    );
  if (parts.length !== input.parts || received.some((index, i) => index !== i))
    throw invalid(
      ['body', 'parts'],
      `parts is ${input.parts} but chunks ${received.length ? `0-${received.at(-1)} (${received.length} of them${received.some((x, i) => x !== i) ? ', with gaps' : ''})` : 'none'} were received`,
    );
  const total = parts.reduce((sum, p) => sum + p.bytes, 0);
  if (total !== Number(session.size_bytes))
    throw invalid(
      ['body', 'parts'],
      `the chunks hold ${total} bytes but init announced ${session.size_bytes}`,
    );

  const spooled = await spoolToTemp(
    joined(deps.storage, session.id, parts.length),
    total,
    'size mismatch',
    deps.tempDir,
  );
  // Filing the asset closes the session and turns its reservation into the asset's bytes.
  const asset = await fileMediaFile(deps, owner, spooled, {
    brandId: session.brand_id,
    filename: session.filename,
    loc: ['body', 'upload_id'],
    uploadId: session.id,
  });
  await dropParts(deps.storage, session.id);
  return asset;
}

/**
 * Probes a spooled video or audio file, stores it and files it as an asset within the
 * quota; the temporary file is gone afterwards, whatever happens.
 */
export async function fileMediaFile(
  deps: MediaDeps,
  owner: Owner,
  spooled: { file: string; bytes: number; sha256: string },
  meta: {
    brandId: string | null;
    filename: string | null;
    loc: (string | number)[];
    /** The chunked upload session the file comes from: closed as the asset is filed. */
    uploadId?: string;
  },
): Promise<Asset> {
  const key = `assets/${owner.accountId}/${randomUUID()}`;
  let stored = false;
  try {
    const facts = await probeMedia(deps.tools, spooled.file).catch((err: unknown) => {
      if (err instanceof MediaToolFailed && err.reason === 'timeout')
        throw invalid(
          meta.loc,
          `reading the file took longer than ${deps.tools.timeoutMs / 1000} s, so it was given up; send a standard ${ACCEPTED_FORMATS} file`,
          'media_timeout',
        );
      throw err;
    });
    if (!facts)
      throw invalid(
        meta.loc,
        `the bytes are not a file in an accepted format (${ACCEPTED_FORMATS}); manifests and playlists (DASH, HLS), concat scripts and image sequences are refused`,
        'not_media',
      );
    await deps.storage.putFile(key, spooled.file);
    stored = true;
    const row = await fileWithinQuota(
      deps,
      owner,
      {
        accountId: owner.accountId,
        brandId: meta.brandId,
        kind: facts.kind,
        mime: facts.mime,
        bytes: spooled.bytes,
        filename: meta.filename,
        sha256: spooled.sha256,
        width: facts.width,
        height: facts.height,
        durationS: facts.durationS,
        storageKey: key,
      },
      meta.uploadId,
    );
    stored = false;
    return toAsset(row, deps);
  } finally {
    await rm(spooled.file, { force: true });
    if (stored) await deps.storage.delete(key).catch(() => undefined);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Cron: closes expired upload sessions (their reservations given back), then removes every
 * upload folder in storage that no session names any more: the expired ones, whatever their
 * indexes (chunks sent under a grant have no upload_parts row), and any a failed delete, a
 * crash or an older version left behind. Answers how many sessions expired.
 */
export async function cleanupExpiredUploads(
  deps: Pick<MediaDeps, 'pool' | 'storage'>,
): Promise<number> {
  const expired = await deleteExpiredUploadSessions(deps.pool);
  // A folder appears only after its session's row commits, so a folder without a row is closed.
  const folders = (await deps.storage.folders(UPLOADS)).filter((f) => UUID.test(f));
  const open = folders.length ? await existingUploadSessions(deps.pool, folders) : new Set();
  for (const folder of folders)
    if (!open.has(folder)) await deps.storage.deletePrefix(uploadFolder(folder));
  return expired.length;
}
