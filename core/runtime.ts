// Opens the database a process uses: DATABASE_URL when set, otherwise the embedded server
// in DATA_DIR/pg (attached to when another process already runs it), and migrates it.
import path from 'node:path';
import type { Config } from './config.ts';
import { startEmbeddedPostgres } from './db/embeddedPostgres.ts';
import { migrate } from './db/migrate.ts';
import { createPool, type Pool } from './db/pool.ts';
import type { Logger } from './logger.ts';
import { loadLocalSecrets } from './secrets.ts';

export type Database = {
  pool: Pool;
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
  if (!url) {
    const secrets = loadLocalSecrets(config.dataDir);
    const server = await startEmbeddedPostgres({
      dir: path.join(config.dataDir, 'pg'),
      password: secrets.pgPassword,
      log: (msg) => log.info(msg),
    });
    url = server.url;
    stopServer = server.stop;
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
    url,
    close: async () => {
      await pool.end();
      await stopServer();
    },
    stopServer: () => stopServer(),
  };
}
