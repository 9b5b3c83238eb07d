// The jobs this process is running now, each with the id it is locked under (in Graphile
// Worker 0.18, its runner's pool's id). Stopping a runner cannot stop a task already running
// (an export's ffmpeg goes on), so the supervisor reads here which locks it must keep until
// their jobs end (workers/supervision.ts), and a shutdown that overruns names what still runs.
import type { Job } from 'graphile-worker';

export type InFlight = {
  started: (job: Job) => void;
  ended: (job: Job) => void;
  /** What runs now ("task #id"). */
  labels: () => string[];
  /** Whether a job locked under one of `lockers` is running. */
  busy: (lockers: Iterable<string>) => boolean;
  /** Resolves once no job locked under one of `lockers` runs. */
  idle: (lockers: Iterable<string>) => Promise<void>;
};

export function inFlight(): InFlight {
  const running = new Map<string, { label: string; lockedBy: string | null }>();
  const waiters = new Set<() => void>();
  const busy = (lockers: Iterable<string>) => {
    const wanted = new Set(lockers);
    for (const job of running.values()) if (job.lockedBy && wanted.has(job.lockedBy)) return true;
    return false;
  };
  return {
    started: (job) =>
      running.set(job.id, { label: `${job.task_identifier} #${job.id}`, lockedBy: job.locked_by }),
    ended: (job) => {
      running.delete(job.id);
      for (const check of [...waiters]) check();
    },
    labels: () => [...running.values()].map((j) => j.label),
    busy,
    idle: (lockers) => {
      const ids = [...lockers];
      return new Promise<void>((resolve) => {
        const check = () => {
          if (busy(ids)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
  };
}
