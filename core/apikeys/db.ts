// SQL for API keys, stored by the SHA-256 of the key (./keys.ts).

import { batched } from '../db/batch.ts';
import type { Queryable } from '../db/pool.ts';
import type { Scope } from '../kernel/plans.ts';
import type { KeyVersion } from '../kernel/principal.ts';
import type { KeyHolder, RememberedKey } from './schema.ts';

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

/** The row versions of a key `k` and its account `a` (RememberedKey.row_version). */
const ROW_VERSION = `k.xmin::text || '/' || a.xmin::text`;

// Every API request runs this, so it is one prepared statement: the key and the account
// fields a principal needs (read here rather than through core/accounts/db.ts, which would be
// a second round trip). It only reads: the last-used stamp is written apart, at most once a
// minute per key (stampKeyUse). The lookup that remembers the key reads the rows' versions
// too; the others do without (each column read costs node-postgres a few thousand
// instructions a request).
const HOLDER_COLUMNS = `
  k.id as key_id, k.scopes,
  (extract(epoch from k.last_used_at) * 1000)::float8 as last_used_ms,
  a.id as account_id, a.email, a.plan, a.selected_brand_id, a.budget_per_minute,
  coalesce((select array_agg(f.feature) from account_features f
            where f.account_id = a.id), '{}') as features`;

const authenticateKey = (versions: boolean) => `
select ${HOLDER_COLUMNS} ${versions ? `, ${ROW_VERSION} as row_version` : ''}
from api_keys k join accounts a on a.id = k.account_id
where k.key_hash = $1`;

const AUTHENTICATE_KEY = authenticateKey(false);
const AUTHENTICATE_KEY_TO_REMEMBER = authenticateKey(true);

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

/** useApiKey for several hashes in one statement: each one's holder, in order. */
async function useApiKeys(db: Queryable, keyHashes: Buffer[]): Promise<(KeyHolder | undefined)[]> {
  const { rows } = await db.query<KeyHolder & { n: number }>({
    name: 'authenticate_api_keys',
    text: `select h.n::int, ${HOLDER_COLUMNS}
           from unnest($1::bytea[]) with ordinality as h(key_hash, n)
           join api_keys k on k.key_hash = h.key_hash
           join accounts a on a.id = k.account_id`,
    values: [keyHashes],
  });
  const holders: (KeyHolder | undefined)[] = keyHashes.map(() => undefined);
  for (const { n, ...holder } of rows) holders[n - 1] = holder;
  return holders;
}

/**
 * useApiKey on a pool, in one statement with the lookups other requests make meanwhile when
 * the pool is busy with them (../db/batch.ts). Each lookup still reads after its request came.
 */
export const useApiKeyBatched = batched<Buffer, KeyHolder | undefined>({
  one: useApiKey,
  many: useApiKeys,
  // A lookup writes nothing and no hash makes it fail: an error is every caller's answer.
  retryAlone: () => false,
  maxInFlight: 4,
  maxBatch: 64,
});

/** useApiKey, with the rows' versions a remembered key is confirmed by (keyStillHolds). */
export async function useApiKeyToRemember(
  db: Queryable,
  keyHash: Buffer,
): Promise<RememberedKey | undefined> {
  const { rows } = await db.query<RememberedKey>({
    name: 'authenticate_api_key_to_remember',
    text: AUTHENTICATE_KEY_TO_REMEMBER,
    values: [keyHash],
  });
  return rows[0];
}

/** A key not stamped within the minute (by any process). */
const STAMP_DUE = `(last_used_at is null or last_used_at < now() - interval '1 minute')`;

/** Stamps a key's last use, unless it was stamped within the minute (by any process). */
export async function stampKeyUse(db: Queryable, keyId: string): Promise<void> {
  await db.query({
    name: 'stamp_api_key_use',
    text: `update api_keys set last_used_at = now() where id = $1 and ${STAMP_DUE}`,
    values: [keyId],
  });
}

/**
 * stampKeyUse for a key about to be remembered: stamps the key row only while it is the
 * version `holder` read, and returns the holder with the version the stamp leaves, so the
 * stamp does not make what is remembered stale at once. Undefined when nothing was stamped
 * (stamped elsewhere within the minute, or the row changed since it was read).
 */
export async function stampRememberedKeyUse(
  db: Queryable,
  holder: RememberedKey,
): Promise<RememberedKey | undefined> {
  const [keyVersion, accountVersion] = holder.row_version.split('/');
  const { rows } = await db.query<{ version: string }>({
    name: 'stamp_remembered_api_key_use',
    text: `update api_keys set last_used_at = now()
            where id = $1 and xmin::text = $2 and ${STAMP_DUE}
            returning xmin::text as version`,
    values: [holder.key_id, keyVersion],
  });
  return rows[0] && { ...holder, row_version: `${rows[0].version}/${accountVersion}` };
}

/**
 * SQL for a CTE that yields the key's account_id and key_id while the key and its account
 * still read as `holder` did (core/auth/rememberedKeys.ts): both rows unchanged since, by their
 * row versions, so the key's hash and scopes and the account's plan (the plan rule and budget
 * limit), budget override and selected brand (the default brand) are what was read. A
 * deleted key has no row; a row changed in any other way (a last-use stamp, storage counters)
 * only sends the request down the exact path. Feature grants are not compared: the statement
 * that folds this in (creating a post) needs none. Its parameters, from `$first` on, are
 * keyStillHoldsParams's.
 */
export const keyStillHolds = (first: number) => `
  select k.account_id, k.id as key_id from api_keys k join accounts a on a.id = k.account_id
  where k.id = $${first} and ${ROW_VERSION} = $${first + 1}`;

export const keyStillHoldsParams = (holder: KeyVersion) => [holder.key_id, holder.row_version];

/**
 * keyStillHolds for many remembered keys at once: SQL joining a relation `r` (with columns
 * key_id and row_version, as keyStillHoldsParams gives them) to each key `k` and its account
 * `a` while both still read as remembered. A row of `r` whose key changed joins nothing.
 */
export const joinKeysStillHeld = (r: string) => `
  join api_keys k on k.id = ${r}.key_id
  join accounts a on a.id = k.account_id and ${ROW_VERSION} = ${r}.row_version`;
