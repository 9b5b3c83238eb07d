// Worker processes a fault test starts as an operator would (a script of test/support run by
// this Node) and kills for real. useSpawnedWorkers registers an afterAll that SIGKILLs any
// still running, so a failing test leaves no process behind.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

const SUPPORT = path.dirname(fileURLToPath(import.meta.url));
/** Every worker process started here and still running. */
const running = new Set<ChildProcess>();

export type SpawnedWorker = {
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` and resolves with how the process ended. */
  kill: (signal: NodeJS.Signals) => Promise<{ code: number | null; signal: string | null }>;
};

function ended(child: ChildProcess) {
  return new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/**
 * Starts `script` (a path from test/support: `webhookWorker.ts`, `../../bin/start.ts`) with
 * `args` and `env`, and resolves once it says "worker started".
 */
export function spawnWorker(
  script: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<SpawnedWorker> {
  const child = spawn(process.execPath, [path.join(SUPPORT, script), ...args], {
    env: { ...process.env, ...env },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  const collect = (d: Buffer) => {
    out += d;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const worker: SpawnedWorker = {
    child,
    output: () => out,
    kill: (signal) => {
      const end = ended(child);
      child.kill(signal);
      return end;
    },
  };
  return new Promise((resolve, reject) => {
    // Only bounds a hang on a loaded machine.
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${out}`)), 60_000);
    child.stdout.on('data', () => {
      if (!out.includes('worker started')) return;
      clearTimeout(timer);
      resolve(worker);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}) before it started:\n${out}`));
    });
  });
}

/** spawnWorker, with every process it started SIGKILLed after the file's tests if still up. */
export function useSpawnedWorkers(): typeof spawnWorker {
  afterAll(async () => {
    await Promise.all(
      [...running].map((child) => {
        const end = ended(child);
        child.kill('SIGKILL');
        return end;
      }),
    );
  });
  return spawnWorker;
}
