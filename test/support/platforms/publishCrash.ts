// A publication worker killed mid-publication, as the crash tests make it: a worker process on
// the shipped connectors (publishWorker.ts) with the platform at its stand-in, the signal it
// died of, and what the sweeper does for a dead worker (its job released to run again).
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeWorkerUtils } from 'graphile-worker';
import { afterAll } from 'vitest';
import type { Pool } from '../../../core/db/pool.ts';
import type { TestServer } from '../server.ts';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'publishWorker.ts');

export type PublishWorkerOptions = {
  /** The service's variables that point the platform at its stand-in (xEnv, threadsEnv, ...). */
  env: Record<string, string>;
  /** CREDENTIALS_KEY, base64: the key the test sealed the connection's credentials with. */
  credentialsKey: string;
  /** Serve the post's media from a loopback public media host (the platforms that fetch it). */
  publicMedia?: boolean;
};

/** The worker processes started here and still running. */
const running = new Set<ChildProcess>();
// Registered in the importing test file's collection: a failing test leaves no worker behind.
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** A worker process publishing from `server`'s database, started now (not yet ready). */
export function spawnPublishWorker(server: TestServer, opts: PublishWorkerOptions): ChildProcess {
  const child = spawn(process.execPath, [SCRIPT], {
    env: {
      ...process.env,
      ...opts.env,
      DATABASE_URL: server.db.url,
      CREDENTIALS_KEY: opts.credentialsKey,
      DATA_DIR: server.dataDir,
      ...(opts.publicMedia ? { PUBLIC_MEDIA: 'loopback' } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Resolves once the worker process says it has started. */
export const started = (child: ChildProcess) =>
  new Promise<void>((r) => child.stdout!.once('data', () => r()));

/** spawnPublishWorker, resolved once the worker has started. */
export async function startPublishWorker(
  server: TestServer,
  opts: PublishWorkerOptions,
): Promise<ChildProcess> {
  const child = spawnPublishWorker(server, opts);
  await started(child);
  return child;
}

/** The signal the process ended by (once it has ended, if it has not yet). */
export const exitSignal = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) r(child.signalCode);
    else child.once('exit', (_code, sig) => r(sig));
  });

/** What the sweeper does for a dead worker: release the post's job, so that it runs again. */
export async function releaseDeadWorkersJob(pool: Pool, postId: string): Promise<void> {
  const { rows } = await pool.query('select locked_by from graphile_worker.jobs where key = $1', [
    `publish_post:${postId}`,
  ]);
  const utils = await makeWorkerUtils({ pgPool: pool });
  await utils.forceUnlockWorkers([rows[0].locked_by]);
  await utils.release();
}
