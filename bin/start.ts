// Process entry: `all` (npm start: API and workers), `api`, `worker`, `migrate`.
// SIGTERM/SIGINT drain: the HTTP server stops accepting and finishes in-flight requests,
// the worker finishes running jobs (or releases them after its abort timeout), then the
// pool closes and an embedded Postgres this process started stops cleanly.
import { availableParallelism } from 'node:os';
import { buildApp } from '../api/app.ts';
import { ConfigError, loadConfig } from '../core/config.ts';
import { credentialsKey } from '../core/connections/credentials.ts';
import { createLogger } from '../core/logger.ts';
import { outboundPolicy } from '../core/outbound/guard.ts';
import { openDatabase } from '../core/runtime.ts';
import { loadLocalSecrets } from '../core/secrets.ts';
import { storageFor } from '../core/storage/storage.ts';
import { startWorker } from '../workers/index.ts';

const ROLES = ['all', 'api', 'worker', 'migrate'] as const;
type Role = (typeof ROLES)[number];

async function main(role: Role) {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const db = await openDatabase(config, log);
  if (role === 'migrate') {
    await db.close();
    return;
  }

  const stops: (() => Promise<void>)[] = [];
  if (role === 'all' || role === 'worker') {
    const runner = await startWorker({
      pool: db.pool,
      concurrency: config.workerConcurrency,
      log: log.child({ role: 'worker' }),
      outbound: outboundPolicy(config),
      storage: storageFor(config),
      // A worker process draws on every core; beside the API one core stays with it.
      render: {
        threads: config.renderThreads ?? (role === 'worker' ? availableParallelism() : undefined),
        timeoutMs: config.renderTimeoutMs,
      },
      credentialsKey: credentialsKey(
        config.credentialsKey ?? loadLocalSecrets(config.dataDir).credentialsKey,
      ),
    });
    stops.push(() => runner.stop());
    log.info({ concurrency: config.workerConcurrency }, 'worker started');
  }
  if (role === 'all' || role === 'api') {
    const sessionSecret = config.sessionSecret ?? loadLocalSecrets(config.dataDir).sessionSecret;
    const mediaUrlSecret = config.mediaUrlSecret ?? loadLocalSecrets(config.dataDir).mediaUrlSecret;
    const app = await buildApp({
      pool: db.pool,
      config,
      sessionSecret,
      mediaUrlSecret,
      logger: log,
    });
    await app.listen({ port: config.port, host: config.host });
    stops.unshift(() => app.close());
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // API first (stop taking work), then workers, then the database.
    for (const stop of stops) await stop().catch((err) => log.error({ err }, 'stop failed'));
    await db.close().catch((err) => log.error({ err }, 'database close failed'));
    log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

const role = (process.argv[2] ?? 'all') as Role;
if (!ROLES.includes(role)) {
  console.error(`usage: node bin/start.ts <${ROLES.join('|')}>`);
  process.exit(2);
}
main(role).catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
