// Room on the local disk: a write that finds the volume full (ENOSPC) or the service user's
// disk quota spent (EDQUOT) answers 507 `storage_full` instead of an opaque 500, and readiness
// reports the storage while it cannot take writes. Room belongs to a volume, so what a failed
// write taught is kept per volume for the whole process, not per request or directory.
import { statSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../kernel/errors.ts';

/** A volume with less room than this counts as full, whether or not a write has failed yet. */
export const FULL_BELOW_BYTES = 1024 * 1024;

/**
 * How long a write that found no room keeps readiness down while nothing is written on its
 * volume since. It ends by itself so that a process taken out of rotation is tried again
 * once the operator has freed space (no write would otherwise come to clear it); a write that
 * still finds no room marks it again.
 */
export const FAILED_WRITE_HOLD_MS = 60_000;

/** When a write onto each volume (by device number) last found no room; gone once one succeeds. */
const failedWrites = new Map<number, number>();

/** The device of `dir`, or of its nearest existing parent (folders are made on first write). */
function volumeOf(dir: string): number | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      return statSync(at).dev;
    } catch {
      if (at === path.dirname(at)) return undefined;
    }
  }
}

/** Whether `err` is a write that found no room: a full volume or a spent disk quota. */
export function isOutOfSpace(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

export const storageFull = () =>
  new DomainError(
    507,
    'storage_full',
    "The server's disk is full, so this was not stored: nothing was kept and nothing counts against your storage quota. Try again later; the operator has to free space on the server.",
  );

/**
 * `err` as the error a write into `dir` answers with: the 507 of storageFull when it found no
 * room (remembered for readiness), otherwise `err` itself.
 */
export function writeFailure(err: unknown, dir: string): unknown {
  if (!isOutOfSpace(err)) return err;
  const volume = volumeOf(dir);
  if (volume !== undefined) failedWrites.set(volume, Date.now());
  return storageFull();
}

/** A write into `dir` succeeded: its volume has room again. */
export function writeSucceeded(dir: string): void {
  if (!failedWrites.size) return;
  const volume = volumeOf(dir);
  if (volume !== undefined) failedWrites.delete(volume);
}

/** Bytes an unprivileged writer may still use on the volume of `dir` (or its nearest parent). */
async function freeBytes(dir: string): Promise<number> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      const s = await statfs(at);
      return s.bavail * s.bsize;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || at === path.dirname(at)) throw err;
    }
  }
}

/**
 * Why the local directories a process writes user media to cannot take writes now, or
 * undefined when they can: a write on their volume found no room less than
 * FAILED_WRITE_HOLD_MS ago and none succeeded since, or the volume has less than
 * FULL_BELOW_BYTES left.
 */
export async function storageTrouble(dirs: string[]): Promise<string | undefined> {
  for (const dir of dirs) {
    const volume = volumeOf(dir);
    const failedAt = volume === undefined ? undefined : failedWrites.get(volume);
    if (failedAt !== undefined && Date.now() - failedAt < FAILED_WRITE_HOLD_MS)
      return 'storage full: a write of media to the local disk found no space left (ENOSPC)';
    if ((await freeBytes(dir)) < FULL_BELOW_BYTES)
      return 'storage full: the volume holding the media has no space left';
  }
  return undefined;
}
