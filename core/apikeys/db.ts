// SQL for API keys, stored by the SHA-256 of the key (./keys.ts).
import type { Feature, Plan, Scope } from '../accounts/plans.ts';
import type { Queryable } from '../db/pool.ts';

export type ApiKeyRow = {
  id: string;
  name: string;
  scopes: Scope[];
  created_at: Date;
  last_used_at: Date | null;
};

export async function insertApiKey(
  db: Queryable,
  k: { accountId: string; name: string; keyHash: Buffer; scopes: Scope[] },
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `insert into api_keys (account_id, name, key_hash, scopes) values ($1, $2, $3, $4)
     returning id, name, scopes, created_at, last_used_at`,
    [k.accountId, k.name, k.keyHash, k.scopes],
  );
  return rows[0]!;
}

export async function listApiKeyRows(db: Queryable, accountId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(
    `select id, name, scopes, created_at, last_used_at from api_keys
     where account_id = $1 order by id`,
    [accountId],
  );
  return rows;
}

/** Deletes the account's key; false when it has no such key. */
export async function deleteApiKeyRow(
  db: Queryable,
  accountId: string,
  keyId: string,
): Promise<boolean> {
  const res = await db.query('delete from api_keys where id = $1 and account_id = $2', [
    keyId,
    accountId,
  ]);
  return (res.rowCount ?? 0) > 0;
}

export type KeyHolder = {
  key_id: string;
  /** When the key was last stamped, in ms since the epoch (no Date parsed per request). */
  last_used_ms: number | null;
  scopes: Scope[];
  account_id: string;
  email: string;
  plan: Plan;
  selected_brand_id: string | null;
  budget_per_minute: number | null;
  features: Feature[];
};

// Every API request runs this, so it is one prepared statement: the key and the account
// fields a principal needs (read here rather than through core/accounts/db.ts, which would be
// a second round trip). It only reads: the last-used stamp is written apart, at most once a
// minute per key (stampKeyUse).
const AUTHENTICATE_KEY = `
select k.id as key_id, k.scopes,
       (extract(epoch from k.last_used_at) * 1000)::float8 as last_used_ms,
       a.id as account_id, a.email, a.plan, a.selected_brand_id, a.budget_per_minute,
       coalesce((select array_agg(f.feature) from account_features f
                 where f.account_id = a.id), '{}') as features
from api_keys k join accounts a on a.id = k.account_id
where k.key_hash = $1`;

/** The key with this hash and its account. */
export async function useApiKey(db: Queryable, keyHash: Buffer): Promise<KeyHolder | undefined> {
  // Named: parsed and planned once per connection, not on every request.
  const { rows } = await db.query<KeyHolder>({
    name: 'authenticate_api_key',
    text: AUTHENTICATE_KEY,
    values: [keyHash],
  });
  return rows[0];
}

/** Stamps a key's last use, unless it was stamped within the minute (by any process). */
export async function stampKeyUse(db: Queryable, keyId: string): Promise<void> {
  await db.query({
    name: 'stamp_api_key_use',
    text: `update api_keys set last_used_at = now()
            where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
    values: [keyId],
  });
}

/**
 * SQL for a CTE that yields the key's account_id and key_id while the key hashed `$first`
 * still reads as `holder` did (core/auth/knownKeys.ts): the same key row, its scopes, and its
 * account's plan (so the plan rule and budget limit hold), budget override and selected brand
 * (the default brand). A deleted key has no row. Feature grants are not compared: the
 * statement that folds this in (creating a post) needs none. Its parameters, from `$first`
 * on, are keyStillHoldsParams's.
 */
export const keyStillHolds = (first: number) => `
  select k.account_id, k.id as key_id from api_keys k join accounts a on a.id = k.account_id
  where k.key_hash = $${first} and k.id = $${first + 1} and k.scopes = $${first + 2}::text[]
    and a.plan = $${first + 3}
    and a.selected_brand_id is not distinct from $${first + 4}::bigint
    and a.budget_per_minute is not distinct from $${first + 5}::int`;

export const keyStillHoldsParams = ({ hash, holder }: { hash: Buffer; holder: KeyHolder }) => [
  hash,
  holder.key_id,
  holder.scopes,
  holder.plan,
  holder.selected_brand_id,
  holder.budget_per_minute,
];
