// One row of every kind an operation takes by id, owned by one account: what another account
// names when a test checks that a stranger's id answers exactly as a missing one. Written with
// SQL (the rows only have to exist, and some kinds have no API that makes one cheaply).
import type { Pool } from '../../core/db/pool.ts';
import type { TestAccount } from './server.ts';

export type EveryKind = {
  brand: string;
  brandUuid: string;
  post: string;
  design: string;
  image: string;
  audio: string;
  video: string;
  drawing: string;
  source: string;
  job: string;
  agentTask: string;
  suggestion: string;
  action: string;
  competitor: string;
  connection: string;
  webhook: string;
  delivery: string;
  apiKey: string;
  upload: string;
  grant: string;
};

/** The kinds of id, each in the shape the service takes it: bigint text, or a UUID. */
export type IdKind = keyof EveryKind;

/** An id of each kind that names no row at all (a bigint in range, a UUID, a grant's text). */
export const MISSING: Record<IdKind, string> = {
  brand: '987654321012',
  brandUuid: 'f0e1d2c3-b4a5-4687-9a8b-7c6d5e4f3a2b',
  post: '987654321013',
  design: '987654321014',
  image: '987654321015',
  audio: '987654321016',
  video: '987654321017',
  drawing: '987654321018',
  source: '987654321019',
  job: '987654321020',
  agentTask: '987654321021',
  suggestion: '987654321022',
  action: '987654321023',
  competitor: '987654321024',
  connection: '987654321025',
  webhook: '987654321026',
  delivery: '987654321027',
  apiKey: '987654321028',
  upload: '0b7e3f6a-58d1-4c6e-9f8a-2d1c3b4a5e6f',
  grant: 'no-such-grant-0123456789',
};

const one = async (pool: Pool, sql: string, params: unknown[]) =>
  String((await pool.query<{ id: string }>(sql, params)).rows[0]!.id);

/** Makes one row of every kind for the account (its own brand and a second key). */
export async function rowsOfEveryKind(pool: Pool, acct: TestAccount): Promise<EveryKind> {
  const a = acct.accountId;
  const b = acct.brandId;
  const asset = (kind: string, mime: string) =>
    one(
      pool,
      `insert into assets (account_id, brand_id, kind, mime, bytes, filename)
       values ($1, $2, $3, $4, 0, 'theirs') returning id`,
      [a, b, kind, mime],
    );
  const design = await one(
    pool,
    `insert into designs (account_id, brand_id, layout)
     values ($1, $2, '{"canvas":{"aspect":"square","bg":"#ffffff"},"layers":[]}') returning id`,
    [a, b],
  );
  const post = await one(
    pool,
    `insert into posts (account_id, brand_id, platform, kind, body, design_id)
     values ($1, $2, 'mastodon', 'image', 'Theirs', $3) returning id`,
    [a, b, design],
  );
  const connection = await one(
    pool,
    `insert into connected_accounts (account_id, brand_id, platform, handle)
     values ($1, $2, 'mastodon', '@theirs') returning id`,
    [a, b],
  );
  const suggestion = await one(
    pool,
    `insert into inbound_items (account_id, brand_id, connected_account_id, platform, kind,
       external_id, author_handle, author_id, text, posted_at)
     values ($1, $2, $3, 'mastodon', 'mention', 'ext-1', '@fan', 'fan', 'Hello', now())
     returning id`,
    [a, b, connection],
  );
  const webhook = await one(
    pool,
    `insert into webhook_endpoints (account_id, url, events, secret)
     values ($1, 'https://127.0.0.1:9/hook', '{post.published}', 'secret') returning id`,
    [a],
  );
  const event = await one(
    pool,
    `insert into events (account_id, type, post_id, body) values ($1, 'post.published', $2, '{}')
     returning id`,
    [a, post],
  );
  const grant = `grant-${a}`;
  await pool.query(
    `insert into oauth_grants (grant_id, account_id, client_id, brand_id, scopes)
     values ($1, $2, 'client', $3, '{read}')`,
    [grant, a, b],
  );
  return {
    brand: b,
    brandUuid: acct.brandUuid,
    post,
    design,
    image: await asset('image', 'image/png'),
    audio: await asset('audio', 'audio/mpeg'),
    video: await asset('video', 'video/mp4'),
    drawing: await one(
      pool,
      `insert into drawings (account_id, brand_id, title, width, height, background)
       values ($1, $2, 'Theirs', 100, 100, '#ffffff') returning id`,
      [a, b],
    ),
    source: await one(
      pool,
      `insert into sources (account_id, brand_id, kind, text) values ($1, $2, 'text', 'Bread')
       returning id`,
      [a, b],
    ),
    job: await one(
      pool,
      `insert into jobs (account_id, kind, subject) values ($1, 'generation', 'theirs')
       returning id`,
      [a],
    ),
    agentTask: await one(
      pool,
      `insert into agent_tasks (account_id, brand_id, kind, goal)
       values ($1, $2, 'draft_week', 'Theirs') returning id`,
      [a, b],
    ),
    suggestion,
    action: await one(
      pool,
      `insert into engagement_actions (account_id, brand_id, item_id, action)
       values ($1, $2, $3, 'like') returning id`,
      [a, b, suggestion],
    ),
    competitor: await one(
      pool,
      `insert into competitors (account_id, brand_id, platform, handle)
       values ($1, $2, 'mastodon', '@rival') returning id`,
      [a, b],
    ),
    connection,
    webhook,
    delivery: await one(
      pool,
      `insert into webhook_deliveries (account_id, endpoint_id, event_id, status)
       values ($1, $2, $3, 'failed') returning id`,
      [a, webhook, event],
    ),
    apiKey: await one(
      pool,
      `insert into api_keys (account_id, name, key_hash, scopes)
       values ($1, 'theirs', $2, '{read}') returning id`,
      [a, `hash-${a}`],
    ),
    upload: await one(
      pool,
      `insert into upload_sessions (account_id, brand_id, filename, size_bytes, part_bytes)
       values ($1, $2, 'clip.mp4', 1000, 1000) returning id`,
      [a, b],
    ),
    grant,
  };
}

/** Tables a request itself writes to (its budget, a sign-in's throttle): left out. */
const BOOKKEEPING = [
  'request_budgets',
  'schema_migrations',
  'worker_heartbeats',
  'login_client_attempts',
  'login_address_subjects',
  'login_subject_failures',
];
/** Tables whose rows record their last use: only how many rows they hold is compared. */
const LAST_USED = ['api_keys', 'sessions', 'oauth_grants', 'oauth_payloads'];

/** A fingerprint of every row the service keeps: equal before and after, nothing was written. */
export async function fingerprint(pool: Pool): Promise<Record<string, string>> {
  const { rows: tables } = await pool.query<{ schema: string; name: string }>(
    `select table_schema as schema, table_name as name from information_schema.tables
      where table_type = 'BASE TABLE'
        and (table_schema = 'public'
             or (table_schema = 'graphile_worker' and table_name = '_private_jobs'))
        and not table_name = any($1)
      order by 1, 2`,
    [BOOKKEEPING],
  );
  const sums: Record<string, string> = {};
  for (const { schema, name } of tables) {
    const table = `"${schema}"."${name}"`;
    const rows = LAST_USED.includes(name)
      ? `count(*)::text`
      : `count(*) || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '')`;
    sums[table] = (await pool.query<{ sum: string }>(`select ${rows} as sum from ${table} t`))
      .rows[0]!.sum;
  }
  return sums;
}
