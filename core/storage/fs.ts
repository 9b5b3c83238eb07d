// The `fs` storage driver: files under $DATA_DIR/media, each written to a temporary name in
// the same directory and renamed when complete, so a crash leaves no half file under a key.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Storage } from './storage.ts';

export function fsStorage(dataDir: string): Storage {
  const root = path.join(dataDir, 'media');
  const fileOf = (key: string) => {
    const file = path.resolve(root, key);
    if (!file.startsWith(`${root}${path.sep}`))
      throw new Error(`storage key escapes the root: ${key}`);
    return file;
  };
  return {
    async put(key, source) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomBytes(6).toString('hex')}.part`;
      try {
        await pipeline(source, createWriteStream(temp));
        await rename(temp, file);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
    },
    async get(key) {
      const file = fileOf(key);
      await stat(file);
      return createReadStream(file);
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
  };
}
