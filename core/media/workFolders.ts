// Working folders for media work (an export's copies and its encode, a preview's frames, a
// render's scaled images). Each lives inside one folder of the process that made it, in the
// system temp directory, named after that process: `sps-work-<pid>-<random>`. A process
// killed with SIGKILL cannot remove what it made, so every worker, as it starts, removes the
// folders of processes that are gone; a live process's folder is never touched.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const PREFIX = 'sps-work-';
const NAME = /^sps-work-(\d+)-/;

let mine: Promise<string> | undefined;

/** This process's folder, made on first use. */
function processFolder(): Promise<string> {
  mine ??= mkdtemp(path.join(os.tmpdir(), `${PREFIX}${process.pid}-`));
  return mine;
}

/** A new working folder for one piece of work (`kind` names it); the work removes it. */
export async function workFolder(kind: string): Promise<string> {
  return mkdtemp(path.join(await processFolder(), `${kind}-`));
}

/** Whether a process with this pid runs (EPERM: it does, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the process folders in `dir` (the system temp directory unless given) whose process
 * is gone, and answers their names. A folder named after this process's own pid that is not
 * this process's folder was left by an earlier process that had the same pid (a container
 * restarted), so it goes too. A pid another live process has taken since keeps its folder
 * until that process is gone: never removing a live one comes first.
 */
export async function sweepDeadWorkFolders(dir = os.tmpdir()): Promise<string[]> {
  // Made first, so a job starting meanwhile cannot make one this sweep would take for a
  // predecessor's.
  const own = path.basename(await processFolder());
  const names = await readdir(dir).catch(() => [] as string[]);
  const dead = names.filter((name) => {
    const pid = Number(NAME.exec(name)?.[1]);
    if (!pid || name === own) return false;
    return pid === process.pid || !running(pid);
  });
  for (const name of dead) await rm(path.join(dir, name), { recursive: true, force: true });
  return dead;
}
