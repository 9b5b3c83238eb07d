// The side-by-side bench: GET /v1/me and POST /v1/posts (a draft) on the real service process
// (`node bin/start.ts api`, logging as in production) beside the one-statement bare routes
// (bench/bareRoutes.ts, in bench/bareServer.ts), each driven by a load generator of its own
// (bench/loadgen.ts) on one embedded Postgres, at the two figures of bench/sideBySide.ts: one
// connection (per-request overhead) and 32 (throughput), each against its target, saying
// which is met. Besides requests a second, it prints CPU microseconds per request for the
// server process, Postgres (every postgres process, from /proc) and the load generator: where
// the time goes.
// Alone: `node bench/throughput.ts` (THROUGHPUT_SECONDS, THROUGHPUT_RUNS); in `npm run bench`
// as `throughput`.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { loadConfig } from '../core/config.ts';
import type { Pool } from '../core/db/pool.ts';
import { createLogger } from '../core/logger.ts';
import { openDatabase } from '../core/runtime.ts';
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

const HERE = import.meta.dirname;
const TICK_MICROS = 1e6 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces). */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * CPU time (user + system) of a process so far, in microseconds; with `reaped`, also that of
 * its children that have exited.
 */
function cpuOf(pid: number, reaped = false): number {
  try {
    const fields = statFields(pid);
    const own = Number(fields[11]) + Number(fields[12]);
    return (own + (reaped ? Number(fields[13]) + Number(fields[14]) : 0)) * TICK_MICROS;
  } catch {
    return 0; // exited meanwhile
  }
}

/**
 * CPU time of the bench's Postgres so far: its postmaster and every process it started
 * (backends, background workers), those that have exited included: a pool closing an idle
 * connection during a run must not take that backend's CPU out of the total (the postmaster
 * counts its reaped children). Only this cluster's: other Postgres servers on the machine
 * (other people's tests) are not the bench's cost.
 */
function postgresCpu(postmaster: number): number {
  let total = cpuOf(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(entry)[1]) === postmaster) total += cpuOf(Number(entry));
    } catch {} // exited meanwhile
  }
  return total;
}

/**
 * The postmaster of the bench's Postgres: the parent of a backend of `pool`. 0 (no CPU read)
 * when that Postgres is not a process of this machine.
 */
async function postmasterOf(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
  try {
    return Number(statFields(rows[0]!.pid)[1]);
  } catch {
    return 0;
  }
}

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

/**
 * A server process on `port`, its output written to `log` (a file, as a production log is:
 * a pipe this process cannot drain while a load runs would stall the server's writes),
 * resolved once it answers.
 */
async function listening(args: string[], env: NodeJS.ProcessEnv, log: string) {
  const port = await freePort();
  const out = openSync(log, 'a');
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  for (let i = 0; ; i++) {
    if (child.exitCode !== null)
      throw new Error(`${args.join(' ')} exited: ${readFileSync(log, 'utf8').slice(-2000)}`);
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) return { child, port };
    if (i > 600)
      throw new Error(`${args.join(' ')} did not start: ${readFileSync(log, 'utf8').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Load = {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
};
type Measured = {
  rps: number;
  node: number;
  pg: number;
  gen: number;
  requests: number;
  failed: number;
};

/** One load run against `target` served by `server`, with CPU per request of each part. */
async function measure(
  server: ChildProcess,
  postmaster: number,
  target: Load,
  seconds: number,
): Promise<Measured> {
  const nodeBefore = cpuOf(server.pid!);
  const pgBefore = postgresCpu(postmaster);
  const out = execFileSync(
    process.execPath,
    [path.join(HERE, 'loadgen.ts'), JSON.stringify({ ...target, seconds })],
    { maxBuffer: 1 << 20 },
  ).toString();
  const r = JSON.parse(out.trim().split('\n').at(-1)!) as {
    requests: number;
    rps: number;
    non2xx: number;
    errors: number;
    cpuMicros: number;
  };
  const per = (micros: number) => micros / Math.max(1, r.requests);
  return {
    rps: r.rps,
    requests: r.requests,
    failed: r.non2xx + r.errors,
    node: per(cpuOf(server.pid!) - nodeBefore),
    pg: per(postgresCpu(postmaster) - pgBefore),
    gen: per(r.cpuMicros),
  };
}

/** A side's measurements as one: requests and CPU summed, rates averaged. */
const mean = (ms: Measured[]): Measured => {
  const requests = ms.reduce((n, m) => n + m.requests, 0);
  const weighted = (k: 'node' | 'pg' | 'gen') =>
    ms.reduce((n, m) => n + m[k] * m.requests, 0) / Math.max(1, requests);
  return {
    rps: ms.reduce((n, m) => n + m.rps, 0) / ms.length,
    requests,
    failed: ms.reduce((n, m) => n + m.failed, 0),
    node: weighted('node'),
    pg: weighted('pg'),
    gen: weighted('gen'),
  };
};

/** Stops `children` (those still running) and waits for them to exit. */
async function stop(children: ChildProcess[]) {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of running) child.kill('SIGTERM');
  await Promise.all(running.map((c) => once(c, 'exit')));
}

const row = (name: string, m: Measured) =>
  `    ${name.padEnd(20)} ${Math.round(m.rps).toString().padStart(6)} req/s   CPU µs/request node ${Math.round(m.node)} / postgres ${Math.round(m.pg)} / total ${Math.round(m.node + m.pg)} (load generator ${Math.round(m.gen)})${m.failed ? `   FAILED ${m.failed}` : ''}`;

export async function benchThroughput(seconds = 5, runs = 3): Promise<Verdict[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sps-throughput-'));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0' });
  const db = await openDatabase(config, createLogger('warn'), { poolSize: 4 });
  const children: ChildProcess[] = [];
  try {
    const account = await createAccount(db.pool, {
      email: `throughput-${Date.now()}@example.com`,
      password: 'bench password',
      plan: 'business',
    });
    await setBudget(db.pool, account.accountId, 1_000_000_000); // the path, not the 429s
    const { key } = await createApiKey(db.pool, account.accountId, { scopes: ['read', 'publish'] });
    const postmaster = await postmasterOf(db.pool);
    const env = { DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: 'info' };
    // Each route gets a fresh service process and a fresh bare one (see below).
    const start = async () => {
      const service = await listening(
        [path.join(HERE, '../bin/start.ts'), 'api'],
        env,
        path.join(dataDir, 'service.log'),
      );
      const bare = await listening(
        [path.join(HERE, 'bareServer.ts')],
        { DATABASE_URL: db.url },
        path.join(dataDir, 'bare.log'),
      );
      children.push(service.child, bare.child);
      return { service, bare };
    };
    const auth = { authorization: `Bearer ${key}` };
    const post = {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'mastodon', body: 'A throughput draft' }),
    };
    // Each route: the service's path, the bare route's, and the request both are sent.
    const pairs: { route: Route; paths: [string, string]; request: Omit<Load, 'url'> }[] = [
      { route: 'GET /v1/me', paths: ['/v1/me', '/me'], request: { headers: auth } },
      { route: 'POST /v1/posts', paths: ['/v1/posts', '/posts'], request: post },
    ];
    const verdicts: Verdict[] = [];
    console.log(
      `Side by side: the service (node bin/start.ts api) beside the one-statement bare routes (bench/bareServer.ts), ${runs} runs a figure, each ${2 * seconds} s a side`,
    );
    for (const pair of pairs) {
      // A route is measured on processes that served nothing else. Measured one after the
      // other on the same service process, creation ran a third slower for a while: once the
      // shapes of the objects /v1/me had used died, V8 dropped the optimized code that knew
      // them (over 100 functions at one GC, traced with --trace-deopt) and re-optimized it
      // under load. A process serving a mix keeps those shapes alive and never pays this.
      const { service, bare } = await start();
      const target = (side: Side, connections: number): Load => ({
        url: `http://127.0.0.1:${side === 'bare' ? bare.port : service.port}${pair.paths[side === 'bare' ? 1 : 0]}`,
        ...pair.request,
        connections,
      });
      const measureSide = (connections: number) => (side: Side, s: number) =>
        measure(
          side === 'bare' ? bare.child : service.child,
          postmaster,
          target(side, connections),
          s,
        );
      // Warm-up three runs long: the service, with far more code than the bare route, kept
      // deoptimizing and re-optimizing for about half a minute under load (its CPU per request
      // fell run after run before). Both are measured once the JIT has settled, as a
      // long-running process is; then a run's length at one connection, whose path alone
      // (the unshared statement) the loaded warm-up takes less often.
      for (const side of ['service', 'bare'] as const) {
        await measureSide(32)(side, 3 * seconds);
        await measureSide(1)(side, seconds);
      }
      for (const figure of FIGURES) {
        console.log(`${pair.route}, ${figure.name} (load average ${loadAverage()})`);
        const ratios = await mirroredRuns(
          runs,
          2 * seconds,
          measureSide(figure.connections),
          mean,
          (run, b, s) => {
            console.log(`  run ${run} (means of four slices)`);
            console.log(row('one-statement bare', b));
            console.log(row('service', s));
            console.log(`    ratio ${(s.rps / b.rps).toFixed(2)}`);
          },
        );
        verdicts.push(verdict(pair.route, figure.connections, ratios));
      }
      await stop([service.child, bare.child]);
    }
    console.log(`Targets (side by side, separate processes; load average now ${loadAverage()}):`);
    for (const line of verdictLines(verdicts)) console.log(line);
    return verdicts;
  } finally {
    await stop(children);
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main)
  await benchThroughput(
    Number(process.env.THROUGHPUT_SECONDS ?? 5),
    Number(process.env.THROUGHPUT_RUNS ?? 3),
  );
