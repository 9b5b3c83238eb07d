// A migrated database of the run's server whose collation lowers beyond ASCII, as the compose
// file's Postgres does (the embedded server is initialised without a locale, so the template
// every other test clones lowers ASCII only): lower('İ') is 'i' here.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate } from '../../core/db/migrate.ts';
import { createPool } from '../../core/db/pool.ts';
import type { TestDatabase } from './db.ts';
import { databaseUrl } from './dbUrl.ts';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('adminUrl') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function utf8Database(locale = 'C.UTF-8'): Promise<TestDatabase> {
  const name = `u_${randomBytes(6).toString('hex')}`;
  await admin(
    `create database ${name} template template0 encoding 'UTF8' lc_collate '${locale}' lc_ctype '${locale}'`,
  );
  const url = databaseUrl(inject('adminUrl'), name);
  const pool = createPool(url, 10);
  await migrate(pool);
  return {
    url,
    pool,
    drop: async () => {
      await pool.end();
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}
