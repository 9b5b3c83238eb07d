// Resolves a bearer API key to a principal and counts the request against the account's
// budget in one round trip: the lookup, the budget increment and the last-used stamp are one
// statement, so a request costs a single query however many API processes share the budget.

import {
  type Feature,
  type Plan,
  REQUEST_BUDGET_PER_MINUTE,
  type Scope,
} from '../accounts/plans.ts';
import { hashApiKey, looksLikeApiKey } from '../apikeys/keys.ts';
import type { Queryable } from '../db/pool.ts';
import type { Budget, Principal } from './principal.ts';

type Row = {
  key_id: string;
  scopes: Scope[];
  account_id: string;
  email: string;
  plan: Plan;
  selected_brand_id: string | null;
  budget_per_minute: number | null;
  features: Feature[];
  used: number | null;
  window_start: Date | null;
};

// The budget row is only counted for plans that may use the API at all.
const AUTHENTICATE_KEY = `
with k as (
  select k.id as key_id, k.scopes, k.last_used_at, a.id as account_id, a.email, a.plan,
         a.selected_brand_id, a.budget_per_minute
  from api_keys k join accounts a on a.id = k.account_id
  where k.key_hash = $1
), b as (
  insert into request_budgets as rb (account_id, window_start, used)
  select account_id, date_trunc('minute', now()), 1 from k where k.plan <> 'free'
  on conflict (account_id) do update set
    used = case when rb.window_start = excluded.window_start then rb.used + 1 else 1 end,
    window_start = excluded.window_start
  returning used, window_start
), touch as (
  update api_keys set last_used_at = now() from k
  where api_keys.id = k.key_id
    and (k.last_used_at is null or k.last_used_at < now() - interval '1 minute')
)
select k.key_id, k.scopes, k.account_id, k.email, k.plan, k.selected_brand_id,
       k.budget_per_minute, b.used, b.window_start,
       coalesce((select array_agg(f.feature) from account_features f
                 where f.account_id = k.account_id), '{}') as features
from k left join b on true`;

export type Authenticated = { principal: Principal; budget: Budget | undefined };

export async function authenticateApiKey(
  db: Queryable,
  token: string,
): Promise<Authenticated | undefined> {
  if (!looksLikeApiKey(token)) return undefined;
  const { rows } = await db.query<Row>(AUTHENTICATE_KEY, [hashApiKey(token)]);
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
  const budget =
    r.used === null || r.window_start === null
      ? undefined
      : {
          limit: r.budget_per_minute ?? REQUEST_BUDGET_PER_MINUTE[r.plan],
          used: r.used,
          resetAt: new Date(r.window_start.getTime() + 60_000),
        };
  return { principal, budget };
}
