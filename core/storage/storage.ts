// Where asset bytes live, behind one small interface: `fs` (files under $DATA_DIR/media) or
// `s3` (any S3-compatible bucket).
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';
import { fsStorage } from './fs.ts';
import { s3Storage } from './s3.ts';

export type Storage = {
  /** Writes the bytes under `key`; a crash never leaves a partial file under that key. */
  put(key: string, source: Readable): Promise<void>;
  /** Moves a complete local file under `key` (a rename when it can be one). */
  putFile(key: string, file: string): Promise<void>;
  /** The bytes under `key`; rejects when there are none. */
  get(key: string): Promise<Readable>;
  /** Removes `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
};

export function storageFor(config: Pick<Config, 'storage' | 'dataDir' | 's3'>): Storage {
  if (config.storage === 's3' && config.s3) return s3Storage(config.s3);
  return fsStorage(config.dataDir);
}
