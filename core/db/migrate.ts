// Applies sql/NNN_name.sql in order, then Graphile Worker's own schema, under one advisory
// lock so that several processes starting at once migrate exactly once.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, runMigrations } from 'graphile-worker';
import type { Pool } from './pool.ts';

const SQL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql');
/** Arbitrary constant naming our migration lock in pg_advisory_lock's key space. */
const MIGRATION_LOCK = 734_201_001;
const silentLogger = new Logger(() => () => {});

export type Migration = { version: number; name: string; sql: string };

export function listMigrations(dir = SQL_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number(f.slice(0, 3)),
      name: f,
      sql: readFileSync(path.join(dir, f), 'utf8'),
    }));
}

/** The highest migration version shipped with this code (used by /readyz). */
export const latestMigrationVersion = (): number => listMigrations().at(-1)?.version ?? 0;

/** Applies pending migrations; returns the names applied by this call. */
export async function migrate(pool: Pool): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    // Graphile Worker's schema first: our migrations may call graphile_worker.add_job.
    await runMigrations({ pgPool: pool, logger: silentLogger });
    await client.query(`create table if not exists schema_migrations (
      version int primary key, name text not null, applied_at timestamptz not null default now())`);
    const { rows } = await client.query<{ version: number }>(
      'select version from schema_migrations',
    );
    const done = new Set(rows.map((r) => r.version));
    for (const m of listMigrations()) {
      if (done.has(m.version)) continue;
      await client.query('begin');
      try {
        await client.query(m.sql);
        await client.query('insert into schema_migrations (version, name) values ($1, $2)', [
          m.version,
          m.name,
        ]);
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
