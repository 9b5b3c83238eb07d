// Opens the database a process uses: DATABASE_URL when set, otherwise the embedded server
// in DATA_DIR/pg (attached to when another process already runs it), and migrates it.
import path from 'node:path';
import type { Config } from './config.ts';
import { startEmbeddedPostgres } from './db/embeddedPostgres.ts';
import { migrate } from './db/migrate.ts';
import { createPool, type Pool } from './db/pool.ts';
import type { Logger } from './logger.ts';
import { loadLocalSecrets } from './secrets.ts';

/** Which database a process opened: DATABASE_URL's, or the embedded one in DATA_DIR and how. */
export type DatabaseSource =
  | { kind: 'url'; url: string }
  | { kind: 'embedded'; dir: string; state: 'attached' | 'started' | 'created' };

export type Database = {
  pool: Pool;
  source: DatabaseSource;
  /** The connection string, for starting other processes on the same database. */
  url: string;
  close: () => Promise<void>;
  /**
   * Stops the embedded server this process started, if any, without waiting for the pool's
   * clients to be returned (a shutdown past its deadline); a no-op otherwise.
   */
  stopServer: () => Promise<void>;
};

export async function openDatabase(
  config: Config,
  log: Logger,
  opts: { migrate?: boolean; poolSize?: number } = {},
): Promise<Database> {
  let stopServer = async () => {};
  let url = config.databaseUrl;
  let source: DatabaseSource = { kind: 'url', url: url ?? '' };
  if (!url) {
    const secrets = loadLocalSecrets(config.dataDir);
    const server = await startEmbeddedPostgres({
      dir: path.join(config.dataDir, 'pg'),
      password: secrets.pgPassword,
      log: (msg) => log.info(msg),
    });
    url = server.url;
    stopServer = server.stop;
    const state = server.created ? 'created' : server.owned ? 'started' : 'attached';
    source = { kind: 'embedded', dir: path.join(config.dataDir, 'pg'), state };
  }
  const pool = createPool(url, opts.poolSize, log);
  try {
    if (opts.migrate !== false) {
      const applied = await migrate(pool);
      if (applied.length) log.info({ applied }, 'migrations applied');
    }
  } catch (err) {
    await pool.end();
    await stopServer();
    throw err;
  }
  return {
    pool,
    source,
    url,
    close: async () => {
      await pool.end();
      await stopServer();
    },
    stopServer: () => stopServer(),
  };
}

/**
 * The database a process uses, in a sentence for its operator: DATABASE_URL's server (without
 * its credentials), or the embedded one's folder and whether it was running, started or
 * created just now (an empty one: another DATA_DIR, or another working folder, than meant?).
 */
export function describeDatabase(source: DatabaseSource): string {
  if (source.kind === 'url') {
    const u = new URL(source.url);
    return `database: DATABASE_URL (${u.host}${u.pathname})`;
  }
  const where = `the embedded PostgreSQL in ${source.dir}`;
  if (source.state === 'created') return `database: created ${where}, new and empty`;
  if (source.state === 'started') return `database: ${where}, started`;
  return `database: ${where}, already running`;
}
