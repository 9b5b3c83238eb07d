// Resolves a bearer API key to a principal in one prepared statement (core/apikeys/db.ts):
// the lookup and the once-a-minute last-used stamp. The request budget is counted in memory
// (./budget.ts).
import { budgetLimitOf } from '../accounts/plans.ts';
import { useApiKey } from '../apikeys/db.ts';
import { hashApiKey, looksLikeApiKey } from '../apikeys/keys.ts';
import type { Queryable } from '../db/pool.ts';
import type { Principal } from './principal.ts';

export type Authenticated = {
  principal: Principal;
  /** The account's requests a minute (plan value or operator override). */
  budgetPerMinute: number;
};

export async function authenticateApiKey(
  db: Queryable,
  token: string,
): Promise<Authenticated | undefined> {
  if (!looksLikeApiKey(token)) return undefined;
  const r = await useApiKey(db, hashApiKey(token));
  if (!r) return undefined;
  const principal: Principal = {
    accountId: r.account_id,
    email: r.email,
    plan: r.plan,
    scopes: r.scopes,
    features: r.features,
    selectedBrandId: r.selected_brand_id,
    credential: { kind: 'api_key', id: r.key_id },
  };
  return { principal, budgetPerMinute: budgetLimitOf(r) };
}
