// One PostgreSQL per test run (embedded, or DATABASE_URL when set) holding a migrated
// template database; each test file clones it (test/support/db.ts), which takes milliseconds.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../core/db/embeddedPostgres.ts';
import { migrate } from '../../core/db/migrate.ts';
import { createPool } from '../../core/db/pool.ts';
import { databaseUrl } from './dbUrl.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    adminUrl: string;
    templateDb: string;
  }
}

export default async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  let stop = async () => {};
  let dir: string | undefined;
  if (!adminUrl) {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sps-test-'));
    const server = await startEmbeddedPostgres({
      dir: path.join(dir, 'pg'),
      password: 'test',
      // Durability is irrelevant for a throwaway test cluster; speed is not.
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
    });
    adminUrl = server.url;
    stop = server.stop;
  }
  const templateDb = `sps_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${templateDb}`);
  await admin.query(`create database ${templateDb}`);
  const pool = createPool(databaseUrl(adminUrl, templateDb), 2);
  await migrate(pool);
  await pool.end();

  project.provide('adminUrl', adminUrl);
  project.provide('templateDb', templateDb);

  return async () => {
    await admin.query(`drop database if exists ${templateDb}`).catch(() => undefined);
    await admin.end();
    await stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}
