// Streaming request bodies with a byte cap: counted and hashed as they pass, refused (413) the
// moment they exceed it, never held in memory.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '../errors.ts';

const madeDirs = new Set<string>();

export const tooLarge = (message: string) => new DomainError(413, 'body_too_large', message);

/** A pass-through that counts and hashes, failing with 413 past `limit` bytes. */
export function byteMeter(limit: number, message: string) {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > limit) return done(tooLarge(message));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, bytes: () => bytes, sha256: () => hash.digest('hex') };
}

/** A new temporary file name in `dir` (beside the storage, so storing it can be a rename). */
export const tempFile = (dir = os.tmpdir()) =>
  path.join(dir, `sps-upload-${randomBytes(8).toString('hex')}`);

/** Writes `source` to a new temporary file through a meter; removes the file on failure. */
export async function spoolToTemp(
  source: Readable | AsyncIterable<Buffer>,
  limit: number,
  message: string,
  dir?: string,
) {
  if (dir && !madeDirs.has(dir)) {
    await mkdir(dir, { recursive: true });
    madeDirs.add(dir);
  }
  const file = tempFile(dir);
  const meter = byteMeter(limit, message);
  try {
    await pipeline(source, meter.stream, createWriteStream(file));
  } catch (err) {
    await rm(file, { force: true });
    if ('destroy' in source) source.destroy();
    throw err;
  }
  return { file, bytes: meter.bytes(), sha256: meter.sha256() };
}
