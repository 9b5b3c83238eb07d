// Worker pools (CONTRACT.md "Jobs and pools"): each task family runs on its own runner, and a
// process started for some pools never takes another pool's jobs; the pools and their
// concurrency come from WORKER_POOLS / WORKER_CONCURRENCY_<POOL> or `--pool`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../core/config.ts';
import { enqueueDeliveries, enqueueRender, TASK, TASK_POOL } from '../../core/jobs/tasks.ts';
import { createLogger } from '../../core/logger.ts';
import { fsStorage } from '../../core/storage/fs.ts';
import { parsePools, WORKER_POOLS } from '../../core/workerPools.ts';
import { startWorker, type WorkerRunner } from '../../workers/index.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let db: TestDatabase;
let dataDir: string;
const started: WorkerRunner[] = [];
beforeAll(async () => {
  db = await freshDatabase();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sps-pools-'));
});
afterAll(async () => {
  for (const w of started) await w.stop();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function worker(pools: (typeof WORKER_POOLS)[number][]) {
  const w = await startWorker({
    pool: db.pool,
    concurrency: 1,
    pools,
    log: createLogger('silent'),
    storage: fsStorage(dataDir),
  });
  started.push(w);
  return w;
}

/** A job's state in Graphile Worker's public view; undefined once it completed. */
async function job(key: string) {
  const { rows } = await db.pool.query<{ attempts: number; locked_at: Date | null }>(
    'select attempts, locked_at from graphile_worker.jobs where key = $1',
    [key],
  );
  return rows[0];
}

describe('worker pools', () => {
  it('put every task in a pool', () => {
    for (const task of Object.values(TASK)) expect(WORKER_POOLS).toContain(TASK_POOL[task]);
  });

  it('a render-only worker never takes a delivery; a publish worker then delivers it', async () => {
    const renderer = await worker(['render']);
    expect(renderer.pools).toEqual(['render']);
    // Jobs for rows that do not exist: each task finds nothing to do and completes.
    await enqueueDeliveries(db.pool, ['999001']);
    await enqueueRender(db.pool, { id: '999002', layout_version: 1 });
    await waitFor(async () => !(await job(`${TASK.renderDesign}:999002`)), {
      what: 'the render job to complete',
      timeoutMs: 30_000,
    });
    // The render worker has run its job; the delivery is untouched, neither tried nor locked.
    expect(await job(`${TASK.deliverWebhook}:999001`)).toEqual({ attempts: 0, locked_at: null });

    const publisher = await worker(['publish']);
    expect(publisher.pools).toEqual(['publish']);
    await waitFor(async () => !(await job(`${TASK.deliverWebhook}:999001`)), {
      what: 'the delivery job to complete',
      timeoutMs: 30_000,
    });
  });

  it('a pool with no task it can run starts no runner', async () => {
    // Without storage, the video pool's exports and previews cannot run here.
    const w = await startWorker({
      pool: db.pool,
      concurrency: 1,
      pools: ['video', 'generate'],
      log: createLogger('silent'),
    });
    started.push(w);
    expect(w.pools).toEqual(['generate']);
  });
});

describe('pool configuration', () => {
  it('defaults to every pool, video encoding one job at a time', () => {
    const config = loadConfig({ WORKER_CONCURRENCY: '6' });
    expect(config.workerPools).toEqual([...WORKER_POOLS]);
    expect(config.poolConcurrency).toEqual({ publish: 6, render: 6, video: 1, generate: 6 });
    const sized = loadConfig({ WORKER_POOLS: 'video, render', WORKER_CONCURRENCY_VIDEO: '2' });
    expect(sized.workerPools).toEqual(['video', 'render']);
    expect(sized.poolConcurrency.video).toBe(2);
  });

  it('refuses an unknown pool, naming the known ones', () => {
    expect(() => loadConfig({ WORKER_POOLS: 'publish,videos' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKER_POOLS: 'publish,videos' })).toThrow(
      /WORKER_POOLS: unknown worker pool "videos"; pools are publish, render, video, generate/,
    );
    expect(() => parsePools('')).toThrow(/\(none given\)/);
  });

  it('npm run worker -- --pool runs those pools; an unknown one stops it with a sentence', async () => {
    const env = { DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: 'info' };
    const refused = await runStart(['worker', '--pool', 'publish,nope'], env);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(
      'unknown worker pool "nope"; pools are publish, render, video, generate',
    );
    expect(refused.output).not.toMatch(/\n\s+at /);

    const worker = await runStart(['worker', '--pool', 'publish'], env, /"msg":"worker started"/);
    const line = worker.output.split('\n').find((l) => l.includes('"worker started"'))!;
    expect(JSON.parse(line)).toMatchObject({ pools: { publish: 4 }, idle_pools: [] });
  });
});

/**
 * Runs `node bin/start.ts ...args`: until it exits, or, given `until`, until its output
 * matches (then it is stopped with SIGTERM). Its exit code and everything it printed.
 */
function runStart(args: string[], env: Record<string, string>, until?: RegExp) {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/start.ts'), ...args], {
    env: { ...process.env, ...env },
    cwd: ROOT,
  });
  let output = '';
  const collect = (d: Buffer) => {
    output += d;
    if (until?.test(output)) child.kill('SIGTERM');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, output })),
  );
}
