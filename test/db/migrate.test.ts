// Migrations apply once, under a lock, however many processes start together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliedVersion, latestMigrationVersion, migrate } from '../../core/db/migrate.ts';
import { createPool } from '../../core/db/pool.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';

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
