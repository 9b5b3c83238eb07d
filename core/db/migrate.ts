// Applies sql/NNN_name.sql in order, then Graphile Worker's own schema, under one advisory
// lock so that several processes starting at once migrate exactly once. Each applied file's
// checksum is kept: a file changed after it was applied stops every process from starting,
// since the database no longer matches what the code believes it holds.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, runMigrations } from 'graphile-worker';
import type { Pool } from './pool.ts';

const SQL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql');
/** Arbitrary constant naming our migration lock in pg_advisory_lock's key space. */
export const MIGRATION_LOCK = 734_201_001;
const silentLogger = new Logger(() => () => {});

export type Migration = { version: number; name: string; sql: string; checksum: string };

/**
 * SHA-256 of the file with CRLF read as LF, so that a checkout converting line endings (git's
 * autocrlf) is not taken for a change.
 */
export const migrationChecksum = (sql: string): string =>
  createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');

export function listMigrations(dir = SQL_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => {
      const sql = readFileSync(path.join(dir, f), 'utf8');
      return { version: Number(f.slice(0, 3)), name: f, sql, checksum: migrationChecksum(sql) };
    });
}

/** An applied migration's file no longer holds what was applied. */
export class MigrationChanged extends Error {
  readonly changed: { name: string; applied: string; now: string }[];
  constructor(changed: MigrationChanged['changed']) {
    const each = changed.map(
      (c) =>
        `sql/${c.name} (sha256 ${c.applied.slice(0, 12)}… when applied, ${c.now.slice(0, 12)}… now)`,
    );
    super(
      `Migration files changed after they were applied to this database: ${each.join(', ')}. ` +
        'An applied migration must never change: restore the file as it was applied ' +
        '(e.g. `git checkout -- sql/`) and put the change in a new numbered migration.',
    );
    this.name = 'MigrationChanged';
    this.changed = changed;
  }
}

/** The highest migration version shipped with this code (used by /readyz). */
export const latestMigrationVersion = (): number => listMigrations().at(-1)?.version ?? 0;

/** Applies pending migrations; returns the names applied by this call. */
export async function migrate(pool: Pool, dir = SQL_DIR): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    // Graphile Worker's schema first: our migrations may call graphile_worker.add_job.
    await runMigrations({ pgPool: pool, logger: silentLogger });
    await client.query(`create table if not exists schema_migrations (
      version int primary key, name text not null, applied_at timestamptz not null default now())`);
    // Databases migrated before checksums were kept get the column, and their rows the
    // checksum of the files as they are now (the first run trusts them; later runs compare).
    await client.query('alter table schema_migrations add column if not exists checksum text');
    const { rows } = await client.query<{ version: number; checksum: string | null }>(
      'select version, checksum from schema_migrations',
    );
    const done = new Map(rows.map((r) => [r.version, r.checksum]));
    const migrations = listMigrations(dir);
    const changed: MigrationChanged['changed'] = [];
    for (const m of migrations) {
      const recorded = done.get(m.version);
      if (recorded === undefined) continue; // not applied yet
      if (recorded === null)
        await client.query('update schema_migrations set checksum = $2 where version = $1', [
          m.version,
          m.checksum,
        ]);
      else if (recorded !== m.checksum)
        changed.push({ name: m.name, applied: recorded, now: m.checksum });
    }
    if (changed.length) throw new MigrationChanged(changed);
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query('begin');
      try {
        await client.query(m.sql);
        await client.query(
          'insert into schema_migrations (version, name, checksum) values ($1, $2, $3)',
          [m.version, m.name, m.checksum],
        );
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.name);
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}

/** The applied migration version, or 0 when the table is missing. */
export async function appliedVersion(pool: Pool): Promise<number> {
  const exists = await pool.query(`select to_regclass('schema_migrations') is not null as ok`);
  if (!exists.rows[0]?.ok) return 0;
  const { rows } = await pool.query<{ v: number }>(
    'select coalesce(max(version), 0)::int as v from schema_migrations',
  );
  return rows[0]?.v ?? 0;
}
