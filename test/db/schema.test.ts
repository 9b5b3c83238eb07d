// The schema holds what the code believes: enumerated columns allow exactly the TypeScript
// constants' values, and every foreign key has an index (a cascade or a lookup by it does not
// scan the table).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_KINDS } from '../../core/assets/schema.ts';
import { JOB_KINDS, JOB_STATUSES } from '../../core/jobs/schema.ts';
import { FEATURES, PLANS, SCOPES } from '../../core/kernel/plans.ts';
import { KINDS, PLATFORMS } from '../../core/kernel/platforms.ts';
import { OAUTH_PLATFORMS } from '../../core/platformApps.ts';
import { POST_STATUSES } from '../../core/posts/schema.ts';
import { WEBHOOK_EVENTS } from '../../core/webhooks/schema.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { checkedValues, unindexedForeignKeys } from '../support/schemaAudit.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.drop());

describe('enumerated columns allow exactly the values of their TypeScript constant', () => {
  const columns: [table: string, column: string, values: readonly string[]][] = [
    ['accounts', 'plan', PLANS],
    ['account_features', 'feature', FEATURES],
    ['api_keys', 'scopes', SCOPES],
    ['assets', 'kind', ASSET_KINDS],
    ['posts', 'platform', PLATFORMS],
    ['posts', 'kind', KINDS],
    ['posts', 'status', POST_STATUSES],
    ['jobs', 'kind', JOB_KINDS],
    ['jobs', 'status', JOB_STATUSES],
    ['connected_accounts', 'platform', PLATFORMS],
    ['connect_flows', 'platform', OAUTH_PLATFORMS],
    ['competitors', 'platform', PLATFORMS],
    ['events', 'type', WEBHOOK_EVENTS],
    ['webhook_endpoints', 'events', WEBHOOK_EVENTS],
  ];
  it.each(columns)('%s.%s', async (table, column, values) => {
    expect(await checkedValues(db.pool, table, column)).toEqual([[...values].sort()]);
  });

  it('a value outside the list is refused by the database itself', async () => {
    const { rows } = await db.pool.query<{ id: string }>(
      `insert into accounts (email, password_hash) values ('c@example.com', 'x') returning id`,
    );
    await expect(
      db.pool.query(
        `insert into events (account_id, type, body) values ($1, 'post.deleted', '{}')`,
        [rows[0]!.id],
      ),
    ).rejects.toThrow(/events_type_check/);
    await expect(
      db.pool.query(
        `insert into webhook_endpoints (account_id, url, events, secret)
         values ($1, 'https://example.com', '{post.deleted}', 's')`,
        [rows[0]!.id],
      ),
    ).rejects.toThrow(/webhook_endpoints_events_check/);
  });
});

describe('foreign keys have a supporting index', () => {
  it('no foreign key in the schema lacks one', async () => {
    const found = await unindexedForeignKeys(db.pool);
    expect(found.filter((k) => k.table === 'audit_probe')).toEqual([]);
  });

  it('the audit finds one that lacks it, and accepts a partial or composite index', async () => {
    await db.pool.query(`
      create table audit_probe (
        id int primary key,
        account_id bigint references accounts (id) on delete cascade,
        brand_id bigint references brands (id) on delete set null,
        post_id bigint references posts (id),
        asset_id bigint references assets (id))`);
    await db.pool.query('create index on audit_probe (brand_id) where brand_id is not null');
    await db.pool.query('create index on audit_probe (post_id, id desc)');
    // Not a leading column, and a partial index on something else: neither supports the key.
    await db.pool.query('create index on audit_probe (id, asset_id)');
    await db.pool.query('create index on audit_probe (account_id) where id > 0');
    const found = await unindexedForeignKeys(db.pool);
    expect(found.filter((k) => k.table === 'audit_probe')).toEqual([
      { table: 'audit_probe', columns: ['account_id'], constraint: 'audit_probe_account_id_fkey' },
      { table: 'audit_probe', columns: ['asset_id'], constraint: 'audit_probe_asset_id_fkey' },
    ]);
    await db.pool.query('drop table audit_probe');
  });
});
