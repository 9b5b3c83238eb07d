// Resolves a bearer API key to a principal in one prepared statement: the lookup and the
// once-a-minute last-used stamp. The request budget is counted in memory (./budget.ts).
import {
  type Feature,
  type Plan,
  REQUEST_BUDGET_PER_MINUTE,
  type Scope,
} from '../accounts/plans.ts';
import { hashApiKey, looksLikeApiKey } from '../apikeys/keys.ts';
import type { Queryable } from '../db/pool.ts';
import type { Principal } from './principal.ts';

type Row = {
  key_id: string;
  scopes: Scope[];
  account_id: string;
  email: string;
  plan: Plan;
  selected_brand_id: string | null;
  budget_per_minute: number | null;
  features: Feature[];
};

const AUTHENTICATE_KEY = `
with k as (
  select k.id as key_id, k.scopes, k.last_used_at, a.id as account_id, a.email, a.plan,
         a.selected_brand_id, a.budget_per_minute
  from api_keys k join accounts a on a.id = k.account_id
  where k.key_hash = $1
), touch as (
  update api_keys set last_used_at = now() from k
  where api_keys.id = k.key_id
    and (k.last_used_at is null or k.last_used_at < now() - interval '1 minute')
)
select k.key_id, k.scopes, k.account_id, k.email, k.plan, k.selected_brand_id,
       k.budget_per_minute,
       coalesce((select array_agg(f.feature) from account_features f
                 where f.account_id = k.account_id), '{}') as features
from k`;

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
  // Named: parsed and planned once per connection, not on every request.
  const { rows } = await db.query<Row>({
    name: 'authenticate_api_key',
    text: AUTHENTICATE_KEY,
    values: [hashApiKey(token)],
  });
  const r = rows[0];
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
  return { principal, budgetPerMinute: r.budget_per_minute ?? REQUEST_BUDGET_PER_MINUTE[r.plan] };
}
