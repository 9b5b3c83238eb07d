// One owner per table (STYLE.md): each table is written only by its concept's db.ts. This
// reads the source of core/, api/ and workers/ for INSERT, UPDATE and DELETE statements and
// fails on one outside the owner's db.ts, and on a table that has no owner named here.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../support/db.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Tables a migration keeps though no code of this release writes them: the previous
 * release's, which its processes still use through a rolling deploy (sql/035).
 */
const RETIRED = '(nobody: the previous release only, sql/035)';

/** Each table and the file that alone writes it. */
const OWNER: Record<string, string> = {
  accounts: 'core/accounts/db.ts',
  account_features: 'core/accounts/db.ts',
  api_keys: 'core/apikeys/db.ts',
  sessions: 'core/sessions/db.ts',
  login_client_attempts: 'core/sessions/db.ts',
  login_address_subjects: 'core/sessions/db.ts',
  login_subject_failures: 'core/sessions/db.ts',
  login_attempts: RETIRED,
  login_address_emails: RETIRED,
  request_budgets: 'core/auth/db.ts',
  brands: 'core/brands/db.ts',
  assets: 'core/assets/db.ts',
  upload_sessions: 'core/assets/db.ts',
  upload_parts: 'core/assets/db.ts',
  connected_accounts: 'core/connections/db.ts',
  connect_flows: 'core/connectFlows/db.ts',
  posts: 'core/posts/db.ts',
  post_assets: 'core/posts/db.ts',
  publication_steps: 'core/posts/db.ts',
  events: 'core/webhooks/db.ts',
  audit_log: 'core/audit/db.ts',
  designs: 'core/designs/db.ts',
  drawings: 'core/drawings/db.ts',
  post_metrics: 'core/metrics/db.ts',
  post_metrics_latest: 'core/metrics/db.ts',
  post_metrics_checks: 'core/metrics/db.ts',
  trends: 'core/trends/db.ts',
  competitors: 'core/competitors/db.ts',
  competitor_posts: 'core/competitors/db.ts',
  competitor_breakouts: 'core/competitors/db.ts',
  inbound_items: 'core/engagement/db.ts',
  oauth_payloads: 'core/oauth/db.ts',
  oauth_grants: 'core/oauth/db.ts',
  inbound_cursors: 'core/engagement/db.ts',
  engagement_actions: 'core/engagement/inboxDb.ts',
  agent_tasks: 'core/agentTasks/db.ts',
  webhook_endpoints: 'core/webhooks/db.ts',
  webhook_deliveries: 'core/webhooks/db.ts',
  webhook_attempts: 'core/webhooks/db.ts',
  worker_heartbeats: 'core/jobs/liveness.ts',
  jobs: 'core/jobs/db.ts',
  brand_memory: 'core/brandMemory/db.ts',
  sources: 'core/sources/db.ts',
  schema_migrations: 'core/db/migrate.ts',
};

/** Writes outside the owner, each with why it stays. */
const EXCEPTIONS: { file: string; table: string; why: string }[] = [
  {
    file: 'core/assets/db.ts',
    table: 'accounts',
    why: 'the storage counter moves in the same statement as the asset row (sql/006)',
  },
  {
    file: 'core/posts/db.ts',
    table: 'audit_log',
    why: 'a post change and its audit row are one statement',
  },
  // Still to move into core/webhooks/db.ts.
  { file: 'core/webhooks/service.ts', table: 'webhook_endpoints', why: 'webhooks db.ts' },
  { file: 'core/webhooks/service.ts', table: 'webhook_deliveries', why: 'webhooks db.ts' },
  { file: 'core/webhooks/delivery.ts', table: 'webhook_deliveries', why: 'webhooks db.ts' },
  { file: 'core/webhooks/delivery.ts', table: 'webhook_attempts', why: 'webhooks db.ts' },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return e.name.endsWith('.ts') ? [rel.split(path.sep).join('/')] : [];
  });
}

/** Comments removed, so prose such as "update posts when ..." is not taken for SQL. */
const code = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

const WRITE = /\b(insert\s+into|update|delete\s+from)\s+([a-z_]+)\b/gi;

function writesIn(file: string): { file: string; table: string; verb: string }[] {
  const src = code(readFileSync(path.join(ROOT, file), 'utf8'));
  return [...src.matchAll(WRITE)]
    .map((m) => ({ file, verb: m[1]!.toLowerCase().replace(/\s+/, ' '), table: m[2]! }))
    .filter((w) => w.table in OWNER);
}

describe('each table is written only by its owner', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db.drop());

  it('every table of the schema has an owner', async () => {
    const { rows } = await db.pool.query<{ name: string }>(
      `select tablename as name from pg_tables where schemaname = 'public' order by 1`,
    );
    expect(rows.map((r) => r.name).filter((t) => !(t in OWNER))).toEqual([]);
  });

  it('no statement outside the owner inserts, updates or deletes its rows', () => {
    const files = ['core', 'api', 'workers', 'bin'].flatMap(sourceFiles);
    const strays = files
      .flatMap(writesIn)
      .filter((w) => OWNER[w.table] !== w.file)
      .filter((w) => !EXCEPTIONS.some((e) => e.file === w.file && e.table === w.table))
      .map((w) => `${w.file}: ${w.verb} ${w.table} (owner ${OWNER[w.table]})`);
    expect([...new Set(strays)]).toEqual([]);
  });
});
