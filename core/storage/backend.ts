// What every storage backend (./fs.ts, ./s3.ts) implements, and the folder rule they share.
import type { Readable } from 'node:stream';

/** Bytes `start` to `end` of an object, both included (as HTTP's Range counts them). */
export type ByteRange = { start: number; end: number };

export type Storage = {
  /** The local directory the bytes live in (fs); readiness checks the room left there. */
  localRoot?: string;
  /** Writes the bytes under `key`; a crash never leaves a partial file under that key. */
  put(key: string, source: Readable): Promise<void>;
  /** Moves a complete local file under `key` (a rename when it can be one). */
  putFile(key: string, file: string): Promise<void>;
  /**
   * The bytes under `key` (only those from `range.start` to `range.end`, both included, when
   * given); rejects when there are none.
   */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every key under `prefix`, a folder ending in '/' (none there is not an error). */
  deletePrefix(prefix: string): Promise<void>;
  /** The names of the folders directly under `prefix` (ending in '/'), without the prefix. */
  folders(prefix: string): Promise<string[]>;
  /** The size of the object under `key`, or undefined when there is none. */
  size(key: string): Promise<number | undefined>;
  /**
   * Addresses a client can PUT bytes to directly, one per key, valid `expiresInS` seconds;
   * each takes exactly `bytes` bytes, so a grant never stores more than it was given for.
   * Only drivers with their own HTTP endpoint have it (s3).
   */
  presignPuts?(puts: { key: string; bytes: number }[], expiresInS: number): Promise<string[]>;
};

/** Refuses a prefix that is not a folder: `uploads/1` would also name `uploads/10/...`. */
export function assertFolder(prefix: string): void {
  if (!prefix.endsWith('/') || prefix === '/') throw new Error(`not a folder prefix: ${prefix}`);
}
