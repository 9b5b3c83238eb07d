// A small file system of the test's own (a tmpfs), so that a disk filled to the brim gives
// the kernel's own ENOSPC, never a simulated one. Mounting needs CAP_SYS_ADMIN: .ci/run runs
// as root, and a machine that refuses the mount fails the test with the reason (a skipped
// fault test would pass CI without proving anything).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export type SmallDisk = {
  /** Where the file system is mounted. */
  dir: string;
  /** Writes a filler file until the kernel answers ENOSPC: nothing more fits. */
  fill(): Promise<void>;
  /** Removes the filler: the room it took is free again. */
  free(): Promise<void>;
  /** Unmounts the file system and removes its mount point. */
  remove(): void;
};

export function mountSmallDisk(megabytes: number): SmallDisk {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sps-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `the full-disk fault test mounts a ${megabytes} MB tmpfs and this machine refused it ` +
        `(it needs root with CAP_SYS_ADMIN, as .ci/run has): ${(err as Error).message}`,
    );
  }
  const filler = path.join(dir, 'filler');
  return {
    dir,
    async fill() {
      const file = await open(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) await file.write(chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        await file.close();
      }
    },
    async free() {
      await rm(filler, { force: true });
    },
    remove() {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
