// A fresh database for one test file, cloned from the run's migrated template.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool, type Pool } from '../../core/db/pool.ts';
import { databaseUrl } from './dbUrl.ts';

export type TestDatabase = { url: string; pool: Pool; drop: () => Promise<void> };

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('adminUrl') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function freshDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name} template ${inject('templateDb')}`));
  const url = databaseUrl(inject('adminUrl'), name);
  const pool = createPool(url, 10);
  return {
    url,
    pool,
    drop: async () => {
      await pool.end();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/** An empty database of the run's server for a third party's own schema (the AppView's). */
export async function emptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `x_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  return {
    url: databaseUrl(inject('adminUrl'), name),
    drop: () =>
      admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}
