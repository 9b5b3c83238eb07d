// A Postgres server of one test's own, for the fault suite: stopped and started again (same
// port, same data directory) to make an outage, which the run's shared server must never see.
// Its `close()` stops it and removes its directory.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../core/db/embeddedPostgres.ts';
import { migrate } from '../../core/db/migrate.ts';
import { createPool } from '../../core/db/pool.ts';

export type OwnPostgres = {
  /** The `postgres` database, migrated: what DATABASE_URL of a process under test names. */
  url: string;
  port: number;
  /** Stops the server (fast: sessions are ended); connections are refused until `start`. */
  stop: () => Promise<void>;
  /** Starts it again on the same port and data directory. */
  start: () => Promise<void>;
  /** Stops it for good and removes its directory. */
  close: () => Promise<void>;
};

const PASSWORD = 'own-postgres';
// Durability is irrelevant for a throwaway cluster; a fast stop still checkpoints cleanly.
const SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sps-own-pg-'));
  const dir = path.join(root, 'pg');
  let server: EmbeddedServer | undefined = await startEmbeddedPostgres({
    dir,
    password: PASSWORD,
    settings: SETTINGS,
  });
  const { url, port } = server;
  const pool = createPool(url, 2);
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  return {
    url,
    port,
    stop,
    start: async () => {
      if (server) return;
      server = await startEmbeddedPostgres({ dir, password: PASSWORD, settings: SETTINGS, port });
    },
    close: async () => {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
