// Chunked upload of video (and audio): init fixes the chunk size, parts arrive in any order
// (a repeated part replaces itself), finish joins them in order into one file, probes it
// with ffprobe and files it as an asset. Bytes stream through; memory stays flat.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { requireOwnedBrand } from '../brands/service.ts';
import { invalid, notFound } from '../errors.ts';
import { probeMedia } from '../media/probe.ts';
import { ACCEPTED_FORMATS, MediaToolFailed } from '../media/tools.ts';
import { deleteQuietly, type Storage } from '../storage/storage.ts';
import {
  type Asset,
  type FinishUploadInput,
  type InitUploadInput,
  MAX_PARTS,
  type PartQuery,
} from './schema.ts';
import { fileWithinQuota, type MediaDeps, type Owner, toAsset } from './service.ts';
import { byteMeter, spoolToTemp, tooLarge } from './spool.ts';

const MIN_PART_BYTES = 8 * 1024 * 1024;
const partKey = (uploadId: string, index: number) => `uploads/${uploadId}/${index}`;

export async function initUpload(deps: MediaDeps, owner: Owner, input: InitUploadInput) {
  if (input.brand_id) await requireOwnedBrand(deps.pool, owner.accountId, input.brand_id);
  // Big enough that the file fits in 80 chunks, and never smaller than 8 MB.
  const partBytes = Math.max(MIN_PART_BYTES, Math.ceil(input.size_bytes / MAX_PARTS));
  const { rows } = await deps.pool.query<{ id: string; expires_at: Date }>(
    `insert into upload_sessions (account_id, brand_id, filename, size_bytes, part_bytes)
     values ($1, $2, $3, $4, $5) returning id, expires_at`,
    [owner.accountId, input.brand_id ?? null, input.filename, input.size_bytes, partBytes],
  );
  const uploadId = rows[0]!.id;
  const parts = Math.ceil(input.size_bytes / partBytes);
  const expiresAt = rows[0]!.expires_at;
  // With a bucket, the client may send the chunks straight to it instead of through the API.
  const grant = deps.storage.presignPuts
    ? {
        method: 'PUT' as const,
        part_urls: await deps.storage.presignPuts(
          Array.from({ length: parts }, (_, i) => partKey(uploadId, i)),
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
  const { rows } = await deps.pool.query<{ index: number; bytes: number }>(
    'select index, bytes from upload_parts where upload_id = $1 order by index',
    [sessionId],
  );
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

type SessionRow = {
  id: string;
  brand_id: string | null;
  filename: string;
  size_bytes: string;
  part_bytes: number;
};

async function requireSession(deps: MediaDeps, accountId: string, uploadId: string) {
  const { rows } = await deps.pool.query<SessionRow>(
    `select id, brand_id, filename, size_bytes, part_bytes from upload_sessions
     where id = $1 and account_id = $2 and expires_at > now()`,
    [uploadId, accountId],
  );
  if (!rows[0]) throw notFound('Upload session');
  return rows[0];
}

/** Stores one chunk; sending the same index again replaces it (idempotent retries). */
export async function putPart(
  deps: MediaDeps,
  owner: Owner,
  q: PartQuery,
  body: Readable,
  contentLength?: number,
) {
  const session = await requireSession(deps, owner.accountId, q.upload_id);
  const message = `A part holds at most part_bytes = ${session.part_bytes} bytes.`;
  // Refused before reading when the size is announced; counted as it streams otherwise.
  if (contentLength !== undefined && contentLength > session.part_bytes) throw tooLarge(message);
  const meter = byteMeter(session.part_bytes, message);
  try {
    await deps.storage.put(partKey(session.id, q.index), body.pipe(meter.stream));
  } catch (err) {
    body.destroy();
    throw err;
  }
  await deps.pool.query(
    `insert into upload_parts (upload_id, index, bytes) values ($1, $2, $3)
     on conflict (upload_id, index) do update set bytes = excluded.bytes, received_at = now()`,
    [session.id, q.index, meter.bytes()],
  );
  return { upload_id: session.id, index: q.index, bytes: meter.bytes() };
}

/** The parts in order, as one stream. */
async function* joined(storage: Storage, uploadId: string, parts: number): AsyncIterable<Buffer> {
  for (let i = 0; i < parts; i++)
    for await (const chunk of await storage.get(partKey(uploadId, i))) yield chunk;
}

async function dropParts(deps: MediaDeps, uploadId: string, indexes: number[]) {
  await deleteQuietly(
    deps.storage,
    indexes.map((i) => partKey(uploadId, i)),
  );
}

export async function finishUpload(
  deps: MediaDeps,
  owner: Owner,
  input: FinishUploadInput,
): Promise<Asset> {
  const session = await requireSession(deps, owner.accountId, input.upload_id);
  const parts = await receivedParts(deps, session.id, input.parts);
  const received = parts.map((p) => p.index);
  const oversized = parts.find((p) => p.bytes > session.part_bytes);
  if (oversized)
    throw invalid(
      ['body', 'parts'],
      `chunk ${oversized.index} holds ${oversized.bytes} bytes; part_bytes is ${session.part_bytes}`,
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
  const asset = await fileMediaFile(deps, owner, spooled, {
    brandId: session.brand_id,
    filename: session.filename,
    loc: ['body', 'upload_id'],
  });
  await deps.pool.query('delete from upload_sessions where id = $1', [session.id]);
  await dropParts(deps, session.id, received);
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
  meta: { brandId: string | null; filename: string | null; loc: (string | number)[] },
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
    const row = await fileWithinQuota(deps, owner, {
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
    });
    stored = false;
    return toAsset(row, deps);
  } finally {
    await rm(spooled.file, { force: true });
    if (stored) await deps.storage.delete(key).catch(() => undefined);
  }
}

/** Cron: removes expired upload sessions and their parts. */
export async function cleanupExpiredUploads(
  deps: Pick<MediaDeps, 'pool' | 'storage'>,
): Promise<number> {
  // Every index the session could hold: chunks sent under a grant have no upload_parts row.
  const { rows } = await deps.pool.query<{ id: string; parts: number }>(
    `delete from upload_sessions where expires_at <= now()
     returning id, ceil(size_bytes::numeric / part_bytes)::int as parts`,
  );
  for (const r of rows)
    await dropParts(
      deps as MediaDeps,
      r.id,
      Array.from({ length: r.parts }, (_, i) => i),
    );
  return rows.length;
}
