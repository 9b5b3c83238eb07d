// What the research tools take and answer (SPEC.md: get_analytics, get_best_times), over the
// metrics collected by ./collect.ts. Engagement is a post's interactions: likes + reposts +
// replies + quotes, as its latest collection counted them.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import { PLATFORMS } from '../kernel/platforms.ts';

const BrandId = IdInput.optional().describe('Omitted: the selected brand.');
const Platform = z.enum(PLATFORMS).optional().describe('Omitted: every platform.');

/** The longest range get_analytics answers, in days. */
export const MAX_ANALYTICS_DAYS = 366;

export const AnalyticsInput = z
  .object({
    brand_id: BrandId,
    platform: Platform,
    from: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('ISO-8601. Omitted: 30 days before `to`.'),
    to: z.iso.datetime({ offset: true }).optional().describe('ISO-8601, exclusive. Omitted: now.'),
  })
  .strict();
export type AnalyticsInput = z.infer<typeof AnalyticsInput>;

const Counts = {
  likes: z.number().int(),
  reposts: z.number().int(),
  replies: z.number().int(),
  engagement: z.number().int(),
};

export const Analytics = z.object({
  brand_id: z.string(),
  platform: z.enum(PLATFORMS).nullable(),
  from: z.string(),
  to: z.string(),
  totals: z.object({ posts: z.number().int(), ...Counts }),
  days: z
    .array(z.object({ day: z.string(), posts: z.number().int(), ...Counts }))
    .describe('Per day of publication in the brand time zone, days with posts only.'),
  top_posts: z.array(
    z.object({
      post_id: z.string(),
      platform: z.enum(PLATFORMS),
      published_at: z.string(),
      permalink_url: z.string().nullable(),
      ...Counts,
    }),
  ),
  collected_at: z.string().nullable().describe('The latest collection the figures include.'),
});
export type Analytics = z.infer<typeof Analytics>;

export const BestTimesInput = z.object({ brand_id: BrandId, platform: Platform }).strict();
export type BestTimesInput = z.infer<typeof BestTimesInput>;

export const WEEKDAYS = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
] as const;

export const BestTimes = z.object({
  brand_id: z.string(),
  platform: z.enum(PLATFORMS).nullable(),
  timezone: z.string(),
  basis: z
    .enum(['own', 'default'])
    .describe("own: ranked by the brand's posts; default: too few of them (under 20)."),
  posts: z.number().int().describe('Posts with collected metrics the ranking read.'),
  slots: z.array(
    z.object({
      day: z.enum(WEEKDAYS),
      hour: z.number().int().describe('0-23, in the brand time zone.'),
      median_engagement: z.number().nullable(),
      samples: z.number().int(),
    }),
  ),
});
export type BestTimes = z.infer<typeof BestTimes>;
