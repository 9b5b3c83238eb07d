// Where asset bytes live, behind one small interface: `fs` now (files under
// $DATA_DIR/media); `s3` plugs in here next.
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';
import { fsStorage } from './fs.ts';

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

export function storageFor(config: Pick<Config, 'storage' | 'dataDir'>): Storage {
  if (config.storage === 's3') throw new Error('STORAGE=s3 is not available yet; use fs');
  return fsStorage(config.dataDir);
}
