// Streaming request bodies with a byte cap: counted and hashed as they pass, refused (413) the
// moment they exceed it, never held in memory.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '../kernel/errors.ts';
import { writeFailure, writeSucceeded } from '../storage/space.ts';

const madeDirs = new Set<string>();

export const tooLarge = (message: string) => new DomainError(413, 'body_too_large', message);

/**
 * What a meter refuses bytes past its limit with: a 413 `body_too_large` saying `message`, or
 * the error made by a function (a limit that is the room left in the storage quota).
 */
export type OverLimit = string | (() => Error);

/** A pass-through that counts and hashes, failing (413 unless `over` says) past `limit` bytes. */
export function byteMeter(limit: number, over: OverLimit) {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > limit) return done(typeof over === 'string' ? tooLarge(over) : over());
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, bytes: () => bytes, sha256: () => hash.digest('hex') };
}

/** A new temporary file name in `dir` (beside the storage, so storing it can be a rename). */
export const tempFile = (dir = os.tmpdir()) =>
  path.join(dir, `sps-upload-${randomBytes(8).toString('hex')}`);

/**
 * Writes `source` to a new temporary file through a meter; removes the file on failure. A
 * full disk is the 507 `storage_full` (core/storage/space.ts).
 */
export async function spoolToTemp(
  source: Readable | AsyncIterable<Buffer>,
  limit: number,
  over: OverLimit,
  dir?: string,
) {
  const file = tempFile(dir);
  const meter = byteMeter(limit, over);
  try {
    if (dir && !madeDirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      madeDirs.add(dir);
    }
    await pipeline(source, meter.stream, createWriteStream(file));
  } catch (err) {
    await rm(file, { force: true });
    if ('destroy' in source) source.destroy();
    throw writeFailure(err, dir ?? os.tmpdir());
  }
  writeSucceeded(dir ?? os.tmpdir());
  return { file, bytes: meter.bytes(), sha256: meter.sha256() };
}
