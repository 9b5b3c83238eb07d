// The `fs` storage driver: files under $DATA_DIR/media, each written to a temporary name in
// the same directory and renamed when complete, so a crash leaves no half file under a key.
// Files are 0600 and directories 0700: users' media is for the service's own user alone.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { assertFolder, type Storage } from './backend.ts';
import { writeFailure, writeSucceeded } from './space.ts';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export function fsStorage(dataDir: string): Storage {
  const root = path.join(dataDir, 'media');
  // Directories known to exist: creating one per write costs a syscall chain each time.
  const made = new Set<string>();
  const ensureDir = async (dir: string) => {
    if (made.has(dir)) return;
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    made.add(dir);
  };
  const fileOf = (key: string) => {
    const file = path.resolve(root, key);
    if (!file.startsWith(`${root}${path.sep}`))
      throw new Error(`storage key escapes the root: ${key}`);
    return file;
  };
  return {
    localRoot: root,
    async put(key, source) {
      const file = fileOf(key);
      const temp = `${file}.${randomBytes(6).toString('hex')}.part`;
      try {
        await ensureDir(path.dirname(file));
        await pipeline(source, createWriteStream(temp, { mode: FILE_MODE }));
        await rename(temp, file);
      } catch (err) {
        await rm(temp, { force: true });
        // A full disk is the 507 storage_full, with nothing left under a temporary name.
        throw writeFailure(err, root);
      }
      writeSucceeded(root);
    },
    async putFile(key, source) {
      const file = fileOf(key);
      try {
        await ensureDir(path.dirname(file));
        // The source was made elsewhere (a spool file, an upload's chunk) with its own mode.
        await chmod(source, FILE_MODE);
        await rename(source, file);
      } catch (err) {
        // Another file system (the temp directory elsewhere): copy, then drop the source.
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw writeFailure(err, root);
        await this.put(key, createReadStream(source));
        await rm(source, { force: true });
      }
    },
    async get(key, range) {
      const file = fileOf(key);
      await stat(file);
      return createReadStream(file, range && { start: range.start, end: range.end });
    },
    async size(key) {
      const info = await stat(fileOf(key)).catch(() => undefined);
      return info?.size;
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
    async deletePrefix(prefix) {
      assertFolder(prefix);
      // A folder here: its unfinished `.part` files go with it.
      await rm(fileOf(prefix.slice(0, -1)), { recursive: true, force: true });
    },
    async folders(prefix) {
      assertFolder(prefix);
      const entries = await readdir(fileOf(prefix.slice(0, -1)), { withFileTypes: true }).catch(
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return [];
          throw err;
        },
      );
      return entries.filter((e) => e.isDirectory()).map((e) => e.name);
    },
  };
}
