// Resolves a bearer credential to a principal: an API key in one prepared, read-only
// statement (core/apikeys/db.ts), whose last use is stamped apart by the one request a minute
// that finds it older than that; anything else as an OAuth access token (core/oauth/). The
// request budget is counted in memory (./budget.ts).
import { stampKeyUse, useApiKey } from '../apikeys/db.ts';
import { hashApiKey, looksLikeApiKey } from '../apikeys/keys.ts';
import type { Queryable } from '../db/pool.ts';
import { authenticateAccessToken } from '../oauth/service.ts';
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

const STAMP_EVERY_MS = 60_000;
/** When this process last stamped each key: requests arriving together stamp it once. */
const stamped = new Map<string, number>();

function stampDue(keyId: string, lastUsed: Date | null, now = Date.now()): boolean {
  if (lastUsed && now - lastUsed.getTime() < STAMP_EVERY_MS) return false;
  if (now - (stamped.get(keyId) ?? 0) < STAMP_EVERY_MS) return false;
  if (stamped.size > 10_000) stamped.clear();
  stamped.set(keyId, now);
  return true;
}

export async function authenticateApiKey(
  db: Queryable,
  token: string,
): Promise<Authenticated | undefined> {
  if (!looksLikeApiKey(token)) return undefined;
  const r = await useApiKey(db, hashApiKey(token));
  if (!r) return undefined;
  if (stampDue(r.key_id, r.last_used_at)) await stampKeyUse(db, r.key_id);
  return authenticated(r, {
    scopes: r.scopes,
    selectedBrandId: r.selected_brand_id,
    credential: { kind: 'api_key', id: r.key_id },
  });
}
