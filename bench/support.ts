// Shared benchmark plumbing: a service like `npm start` (API and workers in this process) on
// a throwaway embedded Postgres (or DATABASE_URL), and an autocannon runner on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { type App, buildApp } from '../api/app.ts';
import { loadConfig } from '../core/config.ts';
import type { Connectors } from '../core/connectors/connector.ts';
import type { Pool } from '../core/db/pool.ts';
import { createLogger } from '../core/logger.ts';
import { outboundPolicy } from '../core/outbound/guard.ts';
import { openDatabase } from '../core/runtime.ts';
import { startWorker } from '../workers/index.ts';

export type BenchService = {
  app: App;
  pool: Pool;
  baseUrl: string;
  /** The bench database, for processes the bench starts beside the service. */
  databaseUrl: string;
  dataDir?: string;
  stop: () => Promise<void>;
};

/** `connectors` stand in for the platforms (benchmarks never reach the network). */
export async function startBenchService(
  opts: { connectors?: Connectors } = {},
): Promise<BenchService> {
  const dataDir = process.env.DATABASE_URL
    ? undefined
    : mkdtempSync(path.join(os.tmpdir(), 'sps-bench-'));
  const config = loadConfig({
    ...process.env,
    PORT: '0',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
  });
  const log = createLogger('warn');
  const db = await openDatabase(config, log, { poolSize: 20 });
  const runner = await startWorker({
    pool: db.pool,
    concurrency: config.workerConcurrency,
    log,
    connectors: opts.connectors,
    outbound: outboundPolicy(config),
  });
  const app = await buildApp({ pool: db.pool, config, sessionSecret: 'bench'.repeat(8) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    pool: db.pool,
    baseUrl: `http://127.0.0.1:${port}`,
    databaseUrl: db.url,
    dataDir,
    stop: async () => {
      await app.close();
      await runner.stop();
      await db.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type LoadResult = { rps: number; p99: number; p50: number; errors: number; non2xx: number };

/** Drives one URL for `seconds` with `connections` concurrent keep-alive connections. */
export async function load(
  url: string,
  opts: {
    seconds?: number;
    connections?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
  } = {},
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    method: (opts.method ?? 'GET') as 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections ?? 32,
    duration: opts.seconds ?? 5,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export const fmt = (r: LoadResult) =>
  `${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms` +
  (r.errors || r.non2xx ? `  (errors ${r.errors}, non-2xx ${r.non2xx})` : '');
