// API keys: created from a dashboard session or the operator CLI, shown once, deleted at once.
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import { type ApiKeyRow, deleteApiKeyRow, insertApiKey, listApiKeyRows } from './db.ts';
import { generateApiKey, hashApiKey } from './keys.ts';
import { type ApiKeyCreated, type ApiKeyInfo, CreateApiKeyInput } from './schema.ts';

// The lookups behind every API request (core/auth/bearer.ts), and for the draft fast path
// (core/auth/rememberedKeys.ts) the lookup that remembers a key and the SQL by which another
// concept's statement confirms a remembered key still holds. Exported as they are, not
// wrapped: each is a prepared statement on every API request's path.
export {
  joinKeysStillHeld,
  keyStillHolds,
  keyStillHoldsParams,
  stampKeyUse,
  stampRememberedKeyUse,
  useApiKeyBatched,
  useApiKeyToRemember,
} from './db.ts';

export { ApiKeyCreated, ApiKeyInfo, CreateApiKeyInput } from './schema.ts';

const toInfo = (r: ApiKeyRow): ApiKeyInfo => ({
  id: r.id,
  name: r.name,
  scopes: r.scopes,
  created_at: r.created_at.toISOString(),
  last_used_at: r.last_used_at?.toISOString() ?? null,
});

/** Creates a key; the returned `key` is the only time the secret is ever shown. */
export async function createApiKey(
  db: Queryable,
  accountId: string,
  input: CreateApiKeyInput,
): Promise<ApiKeyCreated> {
  const { name, scopes } = CreateApiKeyInput.parse(input);
  const key = generateApiKey();
  const info = toInfo(
    await insertApiKey(db, { accountId, name, keyHash: hashApiKey(key), scopes }),
  );
  return { id: info.id, name: info.name, scopes: info.scopes, key, created_at: info.created_at };
}

export async function listApiKeys(db: Queryable, accountId: string): Promise<ApiKeyInfo[]> {
  return (await listApiKeyRows(db, accountId)).map(toInfo);
}

export async function deleteApiKey(db: Queryable, accountId: string, keyId: string) {
  const deleted = isId(keyId) && (await deleteApiKeyRow(db, accountId, keyId));
  if (!deleted) throw notFound('API key');
}

export { apiKeyDigest, hashApiKey, hashFromDigest, looksLikeApiKey } from './keys.ts';
