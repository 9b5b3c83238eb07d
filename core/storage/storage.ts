// Where asset bytes live, behind one small interface: `fs` (files under $DATA_DIR/media) or
// `s3` (any S3-compatible bucket).
import type { Config } from '../config.ts';
import type { Storage } from './backend.ts';
import { fsStorage } from './fs.ts';
import { s3Storage } from './s3.ts';

export { assertFolder, type ByteRange, type Storage } from './backend.ts';

export function storageFor(config: Pick<Config, 'storage' | 'dataDir' | 's3'>): Storage {
  if (config.storage === 's3' && config.s3) return s3Storage(config.s3);
  return fsStorage(config.dataDir);
}

/** Deletes `keys` that no row names any more; a key already gone or a failed delete is no error. */
export async function deleteQuietly(storage: Storage, keys: string[]): Promise<void> {
  for (const key of keys) await storage.delete(key).catch(() => undefined);
}

/** The whole object under `key` in memory; for objects known to be small (images). */
export async function readAll(storage: Storage, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await storage.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
