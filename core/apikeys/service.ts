// API keys: created from a dashboard session or the operator CLI, shown once, deleted at once.
import { z } from 'zod';
import { Scope } from '../accounts/plans.ts';
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import { isId } from '../ids.ts';
import { generateApiKey, hashApiKey } from './keys.ts';

export const CreateApiKeyInput = z
  .object({
    name: z.string().trim().max(100).default('').describe('A label to recognise the key by.'),
    scopes: z
      .array(Scope)
      .min(1)
      .transform((s) => [...new Set(s)])
      .describe('Scopes the key holds: read, publish, media, generate, engage.'),
  })
  .strict();
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

export const ApiKeyInfo = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(Scope),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

export const ApiKeyCreated = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(Scope),
  key: z.string().describe('The API key. Shown only in this response; store it now.'),
  created_at: z.string(),
});
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

type Row = {
  id: string;
  name: string;
  scopes: Scope[];
  created_at: Date;
  last_used_at: Date | null;
};

const toInfo = (r: Row): ApiKeyInfo => ({
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
  const { rows } = await db.query<Row>(
    `insert into api_keys (account_id, name, key_hash, scopes) values ($1, $2, $3, $4)
     returning id, name, scopes, created_at, last_used_at`,
    [accountId, name, hashApiKey(key), scopes],
  );
  const info = toInfo(rows[0]!);
  return { id: info.id, name: info.name, scopes: info.scopes, key, created_at: info.created_at };
}

export async function listApiKeys(db: Queryable, accountId: string): Promise<ApiKeyInfo[]> {
  const { rows } = await db.query<Row>(
    `select id, name, scopes, created_at, last_used_at from api_keys
     where account_id = $1 order by id`,
    [accountId],
  );
  return rows.map(toInfo);
}

export async function deleteApiKey(db: Queryable, accountId: string, keyId: string) {
  const res = isId(keyId)
    ? await db.query('delete from api_keys where id = $1 and account_id = $2', [keyId, accountId])
    : { rowCount: 0 };
  if (!res.rowCount) throw notFound('API key');
}
