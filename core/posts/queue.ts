// The queue at a glance (MCP get_queue_summary): posts by status and platform, and the next
// scheduled ones.
import { z } from 'zod';
import { brandFor, requireOwnedBrand } from '../brands/service.ts';
import type { Queryable } from '../db/pool.ts';
import type { Caller, PostStatus } from './schema.ts';

export const QueueSummary = z.object({
  brand_id: z.string(),
  by_status: z.record(z.string(), z.number()).describe('Post counts by status.'),
  by_platform: z
    .record(z.string(), z.record(z.string(), z.number()))
    .describe('Post counts by platform, then status.'),
  next_scheduled: z
    .array(
      z.object({
        id: z.string(),
        platform: z.string(),
        scheduled_for: z.string(),
        body: z.string(),
      }),
    )
    .describe('The next 10 scheduled posts, soonest first.'),
});
export type QueueSummary = z.infer<typeof QueueSummary>;

/** The summary of one brand: the one given (owned), else the selected one. */
export async function queueSummary(
  db: Queryable,
  caller: Caller,
  requestedBrandId: string | undefined,
): Promise<QueueSummary> {
  const brandId = brandFor(caller, requestedBrandId, 'brand_id');
  await requireOwnedBrand(db, caller.accountId, brandId);
  const counts = await db.query<{ platform: string; status: PostStatus; n: number }>(
    `select platform, status, count(*)::int as n from posts
     where account_id = $1 and brand_id = $2 group by platform, status`,
    [caller.accountId, brandId],
  );
  const next = await db.query<{ id: string; platform: string; scheduled_for: Date; body: string }>(
    `select id, platform, scheduled_for, body from posts
     where account_id = $1 and brand_id = $2 and status = 'scheduled'
     order by scheduled_for limit 10`,
    [caller.accountId, brandId],
  );
  const by_status: Record<string, number> = {};
  const by_platform: Record<string, Record<string, number>> = {};
  for (const { platform, status, n } of counts.rows) {
    by_status[status] = (by_status[status] ?? 0) + n;
    by_platform[platform] = { ...by_platform[platform], [status]: n };
  }
  const next_scheduled = next.rows.map((p) => ({
    id: p.id,
    platform: p.platform,
    scheduled_for: p.scheduled_for.toISOString(),
    body: p.body.length > 280 ? `${p.body.slice(0, 280)}…` : p.body,
  }));
  return { brand_id: brandId, by_status, by_platform, next_scheduled };
}
