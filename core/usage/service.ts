// Usage at a glance (MCP get_usage): plan, request budget, storage, credits and posts.
import { creditsOf, findAccount } from '../accounts/service.ts';
import { storageUseOf } from '../assets/service.ts';
import type { Budget, BudgetCounter } from '../auth/service.ts';
import type { Queryable } from '../db/pool.ts';
import { budgetLimitOf, STORAGE_QUOTA_BYTES } from '../kernel/plans.ts';
import type { Principal } from '../kernel/principal.ts';
import { postCountsByStatus } from '../posts/service.ts';
import type { Usage } from './schema.ts';

export { Usage } from './schema.ts';

export async function describeUsage(db: Queryable, p: Principal, budget: Budget): Promise<Usage> {
  const credits = await creditsOf(db, p.accountId);
  const { used, reserved } = await storageUseOf(db, p.accountId);
  const posts = await postCountsByStatus(db, p.accountId);
  return {
    plan: p.plan,
    request_budget: {
      limit: budget.limit,
      used: budget.used,
      remaining: Math.max(0, budget.limit - budget.used),
      resets_at: budget.resetAt.toISOString(),
    },
    storage: {
      used_bytes: used,
      reserved_bytes: reserved,
      quota_bytes: STORAGE_QUOTA_BYTES[p.plan],
    },
    credits,
    posts_by_status: posts,
  };
}

/**
 * The dashboard's usage page: the same figures, the request window read without counting
 * another request in it (the page's own request was counted on its way in).
 */
export async function usageOfAccount(
  db: Queryable,
  p: Principal,
  budget: BudgetCounter,
): Promise<Usage> {
  const account = await findAccount(db, p.accountId);
  const limit = budgetLimitOf({
    plan: p.plan,
    budget_per_minute: account?.budget_per_minute ?? null,
  });
  return describeUsage(db, p, await budget.count(p.accountId, limit, 0));
}
