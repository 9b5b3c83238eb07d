// Process entry: `all` (npm start: API and workers), `api`, `worker`, `migrate`.
// SIGTERM/SIGINT drain: the HTTP server stops accepting and finishes in-flight requests,
// the worker finishes running jobs (or releases them after its abort timeout), then the
// pool closes and an embedded Postgres this process started stops cleanly. The drain has a
// deadline (SHUTDOWN_TIMEOUT_S): past it, the log names what was still open, the embedded
// Postgres is stopped anyway and the process exits 1.
import { availableParallelism } from 'node:os';
import { buildApp } from '../api/app.ts';
import { publicMediaFor } from '../core/assets/service.ts';
import { ConfigError, loadConfig } from '../core/config.ts';
import { configuredCredentialsKey } from '../core/connections/service.ts';
import { createLogger } from '../core/logger.ts';
import { mediaTools } from '../core/media/tools.ts';
import { parseSigningKeys } from '../core/oauth/service.ts';
import { outboundPolicy } from '../core/outbound/guard.ts';
import { type Database, describeDatabase, openDatabase } from '../core/runtime.ts';
import { loadLocalSecrets } from '../core/secrets.ts';
import { storageFor } from '../core/storage/storage.ts';
import { PoolError, parsePools, WORKER_POOLS } from '../core/workerPools.ts';
import { startWorker } from '../workers/index.ts';

const ROLES = ['all', 'api', 'worker', 'migrate'] as const;
type Role = (typeof ROLES)[number];

async function main(role: Role, poolArg: string | undefined) {
  const config = loadConfig();
  // `--pool video,render` overrides WORKER_POOLS for this process.
  const pools = poolArg === undefined ? config.workerPools : parsePools(poolArg);
  const log = createLogger(config.logLevel);

  // What shutdown stops, in order (API, worker, database), and what each still has open
  // should it overrun. Each part is added as soon as it has started.
  const stages: { name: string; stop: () => Promise<void>; open: () => unknown }[] = [];
  let db: Database | undefined;
  let stopping = false;
  let current = 0;
  /** Past the deadline (or on a second signal): say what was open, stop Postgres, exit 1. */
  const overrun = async (why: string) => {
    const open = Object.fromEntries(stages.slice(current).map((s) => [s.name, s.open()]));
    log.error(
      { waiting_for: stages[current]?.name, open },
      `shutdown stopped waiting (${why}); stopping the database and exiting`,
    );
    const giveUp = new Promise((resolve) => setTimeout(resolve, 30_000).unref());
    await Promise.race([db?.stopServer().catch(() => undefined), giveUp]);
    process.exit(1);
  };
  // Settles when start-up has finished or given up (it stops at the next step once stopping).
  let startup: Promise<unknown> = Promise.resolve();
  const shutdown = async (signal: string) => {
    if (stopping) return void overrun(`a second ${signal}`);
    stopping = true;
    log.info({ signal }, 'shutting down');
    const seconds = config.shutdownTimeoutMs / 1000;
    setTimeout(
      () => void overrun(`not done after SHUTDOWN_TIMEOUT_S=${seconds}`),
      config.shutdownTimeoutMs,
    );
    // A signal during start-up: the step under way (an embedded Postgres starting, the
    // migrations, the worker) finishes first, so that what it started is stopped too.
    await startup.catch(() => undefined);
    for (; current < stages.length; current++) {
      const { name, stop } = stages[current]!;
      await stop().catch((err) => log.error({ err, stage: name }, 'stop failed'));
    }
    log.info('stopped');
    process.exit(0);
  };
  // Installed before the slow start-up, so a signal during it is drained rather than killing
  // the process with an embedded Postgres or a worker half started.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  /**
   * The API's media-URL secret, which signs the addresses platforms fetch media from. A worker
   * that cannot read it still starts: those platforms' media posts then fail saying so.
   */
  const workerMediaUrlSecret = () => {
    if (config.mediaUrlSecret) return config.mediaUrlSecret;
    try {
      return loadLocalSecrets(config.dataDir).mediaUrlSecret;
    } catch (err) {
      log.warn(
        { error: (err as Error).message },
        'no media-URL secret (MEDIA_URL_SECRET, or DATA_DIR/secrets.json): media posts to the platforms that fetch media will fail',
      );
      return undefined;
    }
  };

  const start = async () => {
    const opened = await openDatabase(config, log);
    db = opened;
    stages.push({
      name: 'database',
      stop: () => opened.close(),
      open: () => ({
        checked_out: opened.pool.totalCount - opened.pool.idleCount,
        waiting: opened.pool.waitingCount,
      }),
    });
    log.info(describeDatabase(opened.source));
    if (role === 'migrate') {
      // Stopped by a signal meanwhile: the shutdown closes it.
      if (!stopping) {
        stages.pop();
        await opened.close();
      }
      return;
    }
    if (stopping) return;

    if (role === 'all' || role === 'worker') {
      const runner = await startWorker({
        pool: opened.pool,
        concurrency: config.workerConcurrency,
        pools,
        poolConcurrency: config.poolConcurrency,
        log: log.child({ role: 'worker' }),
        outbound: outboundPolicy(config, log.child({ role: 'worker' })),
        storage: storageFor(config),
        blueskyAppView: config.blueskyAppViewUrl,
        platformApps: config.platformApps,
        publicMedia: publicMediaFor({
          publicBaseUrl: config.publicBaseUrl,
          mediaUrlSecret: workerMediaUrlSecret(),
        }),
        tools: mediaTools(config),
        exportTimeoutMs: config.exportTimeoutMs,
        llm: config.llm,
        // A worker process draws on every core; beside the API one core stays with it.
        render: {
          threads: config.renderThreads ?? (role === 'worker' ? availableParallelism() : undefined),
          timeoutMs: config.renderTimeoutMs,
        },
        credentialsKey: configuredCredentialsKey(config),
      });
      stages.unshift({
        name: 'worker',
        stop: () => runner.stop(),
        open: () => runner.runningJobs(),
      });
      if (stopping) return;
      log.info(
        {
          pools: Object.fromEntries(runner.pools.map((p) => [p, config.poolConcurrency[p]])),
          idle_pools: pools.filter((p) => !runner.pools.includes(p)),
        },
        'worker started',
      );
    }
    if (role === 'all' || role === 'api') {
      const sessionSecret = config.sessionSecret ?? loadLocalSecrets(config.dataDir).sessionSecret;
      const mediaUrlSecret =
        config.mediaUrlSecret ?? loadLocalSecrets(config.dataDir).mediaUrlSecret;
      const app = await buildApp({
        pool: opened.pool,
        config,
        sessionSecret,
        mediaUrlSecret,
        oauthSigningKeys: parseSigningKeys(loadLocalSecrets(config.dataDir).oauthSigningKey),
        logger: log,
      });
      // API first (stop taking work), then workers, then the database.
      stages.unshift({ name: 'api', stop: () => app.close(), open: () => app.openWork() });
      if (stopping) return;
      try {
        await app.listen({ port: config.port, host: config.host });
      } catch (err) {
        if (stopping) return;
        // Stop what started (the worker, an embedded Postgres) before saying what to change.
        for (const stage of stages) await stage.stop().catch(() => undefined);
        throw listenError(err, config.host, config.port);
      }
      if (stopping) return;
      // The session routes refuse a sign-in sent from any other origin (127.0.0.1 for localhost).
      const dashboard = `${config.publicBaseUrl}/`;
      log.info(
        { dashboard },
        `dashboard at ${dashboard} (PUBLIC_BASE_URL: open it at this address, or sign-in is refused ` +
          'with origin_mismatch) — sign in with an account from npm run admin -- account create, ' +
          'or sign up there while SIGNUP allows',
      );
    }
  };
  startup = start();
  try {
    await startup;
  } catch (err) {
    // A failure while a signal's shutdown runs is that shutdown's to finish (it exits 0 or 1).
    if (!stopping) throw err;
  }
}

/** A listen failure as a sentence naming the setting to change, not a stack trace. */
function listenError(err: unknown, host: string, port: number): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const why: Record<string, string> = {
    EADDRINUSE: `port ${port} is in use: stop what holds it or set PORT`,
    EACCES: `port ${port} needs privileges: set PORT to 1024 or above`,
    ENOTFOUND: `HOST "${host}" is not an address or a name this machine resolves: set HOST to an IP address such as 127.0.0.1 or 0.0.0.0`,
    EAI_AGAIN: `HOST "${host}" could not be resolved: set HOST to an IP address such as 127.0.0.1 or 0.0.0.0`,
    EADDRNOTAVAIL: `HOST "${host}" is not an address of this machine: set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0`,
  };
  return code && why[code]
    ? new ConfigError(`Cannot listen on ${host}:${port}: ${why[code]}.`)
    : (err as Error);
}

const [roleArg = 'all', ...rest] = process.argv.slice(2);
const role = roleArg as Role;
const poolAt = rest.indexOf('--pool');
const poolArg = poolAt === -1 ? undefined : (rest[poolAt + 1] ?? '');
const extra = rest.filter((_, i) => i !== poolAt && i !== poolAt + 1);
if (!ROLES.includes(role) || extra.length || (poolArg !== undefined && role === 'api')) {
  console.error(
    `usage: node bin/start.ts <${ROLES.join('|')}> [--pool ${WORKER_POOLS.join(',')}] (--pool: worker and all only)`,
  );
  process.exit(2);
}
main(role, poolArg).catch((err) => {
  console.error(err instanceof ConfigError || err instanceof PoolError ? err.message : err);
  process.exit(1);
});
