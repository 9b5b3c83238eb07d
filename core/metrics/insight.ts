// The research tools over collected metrics (issue 20, item 3): get_analytics (a brand's
// totals, per-day series and top posts over a range) and get_best_times (the hours of the
// week when the brand's own posts engaged most). Both read each post's latest counts
// (post_metrics_latest), one row a post however long its series.

import { requireBrandFor } from '../brands/service.ts';
import type { Pool } from '../db/pool.ts';
import { invalid } from '../kernel/errors.ts';
import type { Caller } from '../posts/service.ts';
import { analyticsOf, engagementBySlot } from './db.ts';
import {
  type Analytics,
  type AnalyticsInput,
  type BestTimes,
  type BestTimesInput,
  MAX_ANALYTICS_DAYS,
  WEEKDAYS,
} from './schema.ts';

const DAY_MS = 86_400_000;
/** get_analytics' range when `from` is omitted. */
export const DEFAULT_ANALYTICS_DAYS = 30;

/** get_analytics: the brand's published posts in [from, to) and how they did. */
export async function getAnalytics(
  pool: Pool,
  caller: Caller,
  input: AnalyticsInput,
): Promise<Analytics> {
  const brand = await requireBrandFor(pool, caller, input.brand_id);
  const to = input.to ? new Date(input.to) : new Date();
  const from = input.from
    ? new Date(input.from)
    : new Date(to.getTime() - DEFAULT_ANALYTICS_DAYS * DAY_MS);
  if (from >= to) throw invalid(['from'], 'must be before `to`');
  if (to.getTime() - from.getTime() > MAX_ANALYTICS_DAYS * DAY_MS)
    throw invalid(['from'], `the range is at most ${MAX_ANALYTICS_DAYS} days`);
  const a = await analyticsOf(pool, {
    accountId: caller.accountId,
    brandId: brand.id,
    platform: input.platform ?? null,
    from,
    to,
    timezone: brand.timezone,
  });
  const iso = (at: string) => new Date(at).toISOString();
  return {
    brand_id: brand.id,
    platform: input.platform ?? null,
    from: from.toISOString(),
    to: to.toISOString(),
    totals: a.totals,
    days: a.days,
    top_posts: a.top.map((t) => ({
      ...t,
      platform: t.platform as Analytics['top_posts'][number]['platform'],
      published_at: iso(t.published_at),
    })),
    collected_at: a.collected_at && iso(a.collected_at),
  };
}

/** Below this many posts with collected metrics, best times are the defaults. */
export const BEST_TIMES_MIN_POSTS = 20;
/** Slots get_best_times answers. */
export const BEST_TIMES_SLOTS = 10;

/**
 * The slots answered without enough posts of the brand's own, the same on every platform (we
 * have no data of our own to tell them apart): weekday mornings, middays and evenings, the
 * hours of the posting slots (09:00, 12:30 and 17:00), midweek first.
 */
const DEFAULT_BEST_TIMES = (['tuesday', 'wednesday', 'thursday', 'monday', 'friday'] as const)
  .flatMap((day) => [9, 12, 17].map((hour) => ({ day, hour })))
  .slice(0, BEST_TIMES_SLOTS);

/** get_best_times: the brand's best hours of the week, ranked by median engagement. */
export async function getBestTimes(
  pool: Pool,
  caller: Caller,
  input: BestTimesInput,
): Promise<BestTimes> {
  const brand = await requireBrandFor(pool, caller, input.brand_id);
  const { slots, posts } = await engagementBySlot(pool, {
    accountId: caller.accountId,
    brandId: brand.id,
    timezone: brand.timezone,
    platform: input.platform ?? null,
    limit: BEST_TIMES_SLOTS,
  });
  const own = posts >= BEST_TIMES_MIN_POSTS;
  return {
    brand_id: brand.id,
    platform: input.platform ?? null,
    timezone: brand.timezone,
    basis: own ? 'own' : 'default',
    posts,
    slots: own
      ? slots.map((s) => ({
          day: WEEKDAYS[s.dow]!,
          hour: s.hour,
          median_engagement: s.median,
          samples: s.samples,
        }))
      : DEFAULT_BEST_TIMES.map((s) => ({ ...s, median_engagement: null, samples: 0 })),
  };
}
