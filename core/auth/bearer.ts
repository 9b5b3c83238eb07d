// Resolves a bearer credential to a principal: an API key in one prepared, read-only
// statement (core/apikeys/db.ts), anything else as an OAuth access token (core/oauth/); the
// last use of either is stamped apart (./lastUse.ts). The request budget is counted in
// memory (./budget.ts).
import { stampKeyUse, useApiKey } from '../apikeys/db.ts';
import { hashApiKey, looksLikeApiKey } from '../apikeys/keys.ts';
import type { Queryable } from '../db/pool.ts';
import { authenticateAccessToken } from '../oauth/service.ts';
import { stampDue } from './lastUse.ts';
import { type Authenticated, authenticated } from './principal.ts';

export type { Authenticated };

/** The caller a bearer token speaks for (an API key or an OAuth access token), if any. */
export const authenticateBearerToken = async (
  db: Queryable,
  token: string,
  publicBaseUrl: string,
): Promise<Authenticated | undefined> =>
  (await authenticateApiKey(db, token)) ??
  (await authenticateAccessToken(db, token, publicBaseUrl));

export async function authenticateApiKey(
  db: Queryable,
  token: string,
): Promise<Authenticated | undefined> {
  if (!looksLikeApiKey(token)) return undefined;
  const r = await useApiKey(db, hashApiKey(token));
  if (!r) return undefined;
  if (stampDue(`key:${r.key_id}`, r.last_used_at)) await stampKeyUse(db, r.key_id);
  return authenticated(r, {
    scopes: r.scopes,
    selectedBrandId: r.selected_brand_id,
    credential: { kind: 'api_key', id: r.key_id },
  });
}
