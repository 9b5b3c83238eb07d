// Linux's process table as a fault test reads it (/proc): which processes a process started,
// and whether one of them still runs. A killed process nobody has reaped yet (a zombie) runs
// no more, so it counts as gone; a pid taken by a new process is told apart by its start time.
import { readdirSync, readFileSync } from 'node:fs';

/** A process as found: its pid and start time (clock ticks after boot) name it uniquely. */
export type Proc = { pid: number; startTime: string };

type Stat = Proc & { comm: string; state: string; ppid: number };

function statOf(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split at the last ')'.
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return {
    pid,
    comm: text.slice(text.indexOf('(') + 1, close),
    state: fields[0]!,
    ppid: Number(fields[1]),
    // Field 22 of the whole line, the 20th after comm.
    startTime: fields[19]!,
  };
}

/** The running processes named `comm` (e.g. `ffmpeg`) that process `parent` started. */
export function childrenOf(parent: number, comm: string): Proc[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => statOf(Number(name)))
    .filter((s): s is Stat => !!s && s.ppid === parent && s.comm === comm && s.state !== 'Z')
    .map(({ pid, startTime }) => ({ pid, startTime }));
}

/** Whether `proc` still runs: its pid exists, with its start time, and is not a zombie. */
export function isRunning(proc: Proc): boolean {
  const s = statOf(proc.pid);
  return !!s && s.startTime === proc.startTime && s.state !== 'Z';
}
