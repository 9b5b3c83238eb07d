// Shared benchmark plumbing: a service like `npm start` (API and workers in this process) on
// a throwaway embedded Postgres (or DATABASE_URL), and an autocannon runner on loopback.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { type App, buildApp } from '../api/app.ts';
import { loadConfig } from '../core/config.ts';
import type { Connectors } from '../core/connectors/connector.ts';
import type { Pool } from '../core/db/pool.ts';
import { createLogger } from '../core/logger.ts';
import { mediaTools } from '../core/media/tools.ts';
import { outboundPolicy } from '../core/outbound/guard.ts';
import { openDatabase } from '../core/runtime.ts';
import { storageFor } from '../core/storage/storage.ts';
import { startWorker } from '../workers/index.ts';
import {
  FIGURES,
  loadAverage,
  mirroredRuns,
  type Route,
  type Side,
  type Verdict,
  verdict,
  verdictLines,
} from './sideBySide.ts';

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
  // Publication, deliveries and video exports run here, as in `npm start`; Canvas renders
  // are left to the worker processes the render benchmarks start and measure on their own.
  const runner = await startWorker({
    pool: db.pool,
    concurrency: config.workerConcurrency,
    pools: ['publish', 'video', 'generate'],
    poolConcurrency: config.poolConcurrency,
    log,
    connectors: opts.connectors,
    outbound: outboundPolicy(config),
    storage: storageFor(config),
    tools: mediaTools(config),
    exportTimeoutMs: config.exportTimeoutMs,
  });
  const app = await buildApp({
    pool: db.pool,
    config,
    sessionSecret: 'bench'.repeat(8),
    mediaUrlSecret: 'bench-media'.repeat(4),
  });
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

/**
 * Starts `node bin/start.ts <role>` on the bench's database and storage, resolving once its
 * output matches `ready` (with the match), so the bench can measure that process alone.
 */
export async function spawnServiceProcess(
  svc: BenchService,
  role: 'all' | 'api' | 'worker',
  ready: RegExp,
): Promise<{ child: ChildProcess; ready: RegExpExecArray }> {
  const child = spawn(
    process.execPath,
    [path.resolve(import.meta.dirname, '../bin/start.ts'), role],
    {
      env: {
        ...process.env,
        DATABASE_URL: svc.databaseUrl,
        PORT: '0',
        LOG_LEVEL: 'info',
        DATA_DIR: svc.dataDir ?? os.tmpdir(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let tail = '';
  const keep = (d: Buffer) => {
    tail = (tail + d).slice(-4000);
  };
  child.stderr!.on('data', keep);
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      keep(d);
      const m = ready.exec(tail);
      if (m) resolve(m);
    });
    child.once('exit', (code) => reject(new Error(`${role} exited ${code}: ${tail}`)));
  });
  return { child, ready: match };
}

/** A process's resident memory now and at its peak (VmRSS, VmHWM), in bytes. */
export async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]);
  return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
}

/** A `tools/call` request to /mcp with `key`, as fetch takes it (stateless JSON answers). */
export const mcpToolCall = (key: string, name: string, args: Record<string, unknown>) => ({
  method: 'POST',
  headers: {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json',
    'mcp-protocol-version': '2025-06-18',
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args },
  }),
});

/** Two or more load results of one side as one: rates and latencies averaged, failures summed. */
const meanLoad = (rs: LoadResult[]): LoadResult => {
  const avg = (k: 'rps' | 'p50' | 'p99') => rs.reduce((n, r) => n + r[k], 0) / rs.length;
  const sum = (k: 'errors' | 'non2xx') => rs.reduce((n, r) => n + r[k], 0);
  return {
    rps: avg('rps'),
    p50: avg('p50'),
    p99: avg('p99'),
    errors: sum('errors'),
    non2xx: sum('non2xx'),
  };
};

/**
 * bench/throughput.ts's comparison in this process: `route` on the service (`urls.service`)
 * beside the one-statement bare route (`urls.bare`, bench/bareRoutes.ts) at both figures of
 * bench/sideBySide.ts, `runs` mirrored runs each, printed with the verdicts.
 */
export async function sideBySideInProcess(
  route: Route,
  urls: Record<Side, string>,
  request: { headers: Record<string, string>; method?: string; body?: string },
  seconds: number,
  runs = 3,
): Promise<Verdict[]> {
  const measure = (connections: number) => (side: Side, s: number) =>
    load(urls[side], { ...request, connections, seconds: s });
  for (const side of ['bare', 'service'] as const) {
    await measure(32)(side, seconds); // warm-up
    await measure(1)(side, seconds);
  }
  const verdicts: Verdict[] = [];
  console.log(`${route} beside the one-statement bare route, in this process`);
  for (const figure of FIGURES) {
    console.log(`  ${figure.name} (load average ${loadAverage()})`);
    const ratios = await mirroredRuns(
      runs,
      2 * seconds,
      measure(figure.connections),
      meanLoad,
      (run, b, s) => {
        console.log(`    run ${run} (means of four slices)`);
        console.log(`      one-statement bare  ${fmt(b)}`);
        console.log(`      ${route.padEnd(18)}  ${fmt(s)}`);
        console.log(`      ratio               ${(s.rps / b.rps).toFixed(2)}`);
      },
    );
    verdicts.push(verdict(route, figure.connections, ratios));
  }
  for (const line of verdictLines(verdicts)) console.log(line);
  return verdicts;
}
