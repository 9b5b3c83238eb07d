// Usage at a glance (MCP get_usage): plan, request budget, storage, credits and posts.
import { z } from 'zod';
import type { Budget, Principal } from '../auth/principal.ts';
import type { Queryable } from '../db/pool.ts';
import { Plan, STORAGE_QUOTA_BYTES } from './plans.ts';

export const Usage = z.object({
  plan: Plan,
  request_budget: z.object({
    limit: z.number().describe('Requests a minute.'),
    used: z.number(),
    remaining: z.number(),
    resets_at: z.string(),
  }),
  storage: z.object({
    used_bytes: z.number().describe('Bytes held in the media library.'),
    quota_bytes: z.number().describe('The plan’s storage quota.'),
  }),
  credits: z.number(),
  posts_by_status: z.record(z.string(), z.number()),
});
export type Usage = z.infer<typeof Usage>;

export async function describeUsage(db: Queryable, p: Principal, budget: Budget): Promise<Usage> {
  const { rows } = await db.query<{
    credits: string;
    used_bytes: string;
    posts: Record<string, number> | null;
  }>(
    `select a.credits,
            a.storage_used_bytes as used_bytes,
            (select json_object_agg(status, n) from
               (select status, count(*)::int as n from posts where account_id = a.id group by status) s
            ) as posts
     from accounts a where a.id = $1`,
    [p.accountId],
  );
  const row = rows[0]!;
  return {
    plan: p.plan,
    request_budget: {
      limit: budget.limit,
      used: budget.used,
      remaining: Math.max(0, budget.limit - budget.used),
      resets_at: budget.resetAt.toISOString(),
    },
    storage: { used_bytes: Number(row.used_bytes), quota_bytes: STORAGE_QUOTA_BYTES[p.plan] },
    credits: Number(row.credits),
    posts_by_status: row.posts ?? {},
  };
}
