// Migrations apply once, under a lock, however many processes start together; an applied
// migration's file never changes, and the migrator refuses to start when one did.
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appliedVersion,
  latestMigrationVersion,
  listMigrations,
  MigrationChanged,
  migrate,
} from '../../core/db/migrate.ts';
import { createPool } from '../../core/db/pool.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';

const SQL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql');

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.drop());

describe('migrations', () => {
  it('applying them again changes nothing', async () => {
    expect(await appliedVersion(db.pool)).toBe(latestMigrationVersion());
    expect(await migrate(db.pool)).toEqual([]);
    expect(await appliedVersion(db.pool)).toBe(latestMigrationVersion());
  });

  it('several processes migrating an empty database at once apply each migration once', async () => {
    await db.pool.query(
      'drop schema public cascade; create schema public; drop schema graphile_worker cascade',
    );
    expect(await appliedVersion(db.pool)).toBe(0);
    const pools = [createPool(db.url, 2), createPool(db.url, 2), createPool(db.url, 2)];
    const results = await Promise.all(pools.map((p) => migrate(p)));
    await Promise.all(pools.map((p) => p.end()));
    expect(results.flat().filter((name) => name.startsWith('001_'))).toHaveLength(1);
    expect(await appliedVersion(db.pool)).toBe(latestMigrationVersion());
    const { rows } = await db.pool.query(`select to_regclass('graphile_worker.jobs') as t`);
    expect(rows[0].t).not.toBeNull();
  });
});

describe('an applied migration never changes', () => {
  let own: TestDatabase;
  const dirs: string[] = [];
  beforeAll(async () => {
    own = await freshDatabase();
  });
  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await own.drop();
  });

  /** A copy of sql/ that a test may edit, as a checkout with a changed file would be. */
  const copySqlDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sps-sql-'));
    dirs.push(dir);
    cpSync(SQL_DIR, dir, { recursive: true });
    return dir;
  };
  const recorded = async () =>
    (
      await own.pool.query<{ name: string; checksum: string | null }>(
        'select name, checksum from schema_migrations order by version',
      )
    ).rows;

  it('each applied migration keeps the checksum of its file', async () => {
    const files = listMigrations();
    expect(await recorded()).toEqual(files.map((m) => ({ name: m.name, checksum: m.checksum })));
  });

  it('a changed applied file stops the migrator, naming the file, and nothing is applied', async () => {
    const sql = copySqlDir();
    appendFileSync(path.join(sql, '003_webhooks.sql'), '\ncreate table sneaked_in (id int);\n');
    writeFileSync(path.join(sql, '999_pending.sql'), 'create table pending_one (id int);\n');
    const before = await recorded();

    const err = await migrate(own.pool, sql).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationChanged);
    expect((err as Error).message).toMatch(
      /sql\/003_webhooks\.sql .*changed|changed.*sql\/003_webhooks\.sql/,
    );
    expect((err as Error).message).toContain('new numbered migration');
    expect((err as MigrationChanged).changed.map((c) => c.name)).toEqual(['003_webhooks.sql']);
    // Refused before anything ran: the pending migration is not applied, nothing recorded moved.
    expect(await recorded()).toEqual(before);
    const { rows } = await own.pool.query(`select to_regclass('pending_one') as t`);
    expect(rows[0].t).toBeNull();
  });

  it('line endings converted by a checkout are not a change', async () => {
    const sql = copySqlDir();
    const file = path.join(sql, '001_accounts.sql');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
    expect(await migrate(own.pool, sql)).toEqual([]);
  });

  it('a database migrated before checksums were kept records them once, then compares', async () => {
    await own.pool.query('alter table schema_migrations drop column checksum');
    expect(await migrate(own.pool)).toEqual([]);
    const files = listMigrations();
    expect(await recorded()).toEqual(files.map((m) => ({ name: m.name, checksum: m.checksum })));

    const sql = copySqlDir();
    appendFileSync(path.join(sql, '010_designs.sql'), '-- edited after it was applied\n');
    await expect(migrate(own.pool, sql)).rejects.toThrow(/sql\/010_designs\.sql/);
    // The unchanged files still start.
    expect(await migrate(own.pool)).toEqual([]);
  });
});
