// MCP research tools (SPEC.md "MCP", Research and results): get_analytics and
// get_best_times over core/metrics/insight.ts, list_trends over core/trends/service.ts.

import {
  Analytics,
  AnalyticsInput,
  BestTimes,
  BestTimesInput,
} from '../../../core/metrics/schema.ts';
import { getAnalytics, getBestTimes } from '../../../core/metrics/service.ts';
import { ListTrendsInput, Trends } from '../../../core/trends/schema.ts';
import { listTrends } from '../../../core/trends/service.ts';
import { summarisedInOutputs } from '../jsonSchema.ts';
import { defineTool, READS } from '../registry.ts';

// The answers in a sentence each: their full schemas would cost tools/list 3 KB.
const AnalyticsAnswer = summarisedInOutputs(
  Analytics.clone(),
  'brand_id; platform; from; to; totals {posts, likes, reposts, replies, engagement}; days [{day (YYYY-MM-DD, brand time zone), posts, likes, reposts, replies, engagement}] (days with posts); top_posts [{post_id, platform, published_at, permalink_url, likes, reposts, replies, engagement}] (10 at most); collected_at (the latest collection counted).',
);
const BestTimesAnswer = summarisedInOutputs(
  BestTimes.clone(),
  'brand_id; platform; timezone; basis (own, or default under 20 posts); posts (read); slots [{day (sunday-saturday), hour (0-23, brand time zone), median_engagement, samples}] (10 at most, best first).',
);

export const INSIGHT_TOOLS = [
  defineTool({
    name: 'get_analytics',
    title: 'Get analytics',
    description:
      "How a brand's published posts did over a range (default the last 30 days), as the platforms counted them at the latest collection: totals, a per-day series, the top posts with permalinks. Engagement is likes + reposts + replies + quotes. Use this tool when you need to: report results or see what worked.",
    input: AnalyticsInput,
    output: AnalyticsAnswer,
    annotations: READS,
    scope: 'read',
    run: async (ctx, args) => getAnalytics(ctx.pool, ctx.principal, args),
  }),

  defineTool({
    name: 'get_best_times',
    title: 'Get best times',
    description:
      'The best hours of the week to post for a brand, in its time zone, ranked by the median engagement of its own posts published then, each with its sample count; with under 20 posts, default slots (basis: default). Use this tool when you need to: choose when to schedule.',
    input: BestTimesInput,
    output: BestTimesAnswer,
    annotations: READS,
    scope: 'read',
    run: async (ctx, args) => getBestTimes(ctx.pool, ctx.principal, args),
  }),

  defineTool({
    name: 'list_trends',
    title: 'List trends',
    description:
      "What is trending on a platform where the brand posts (its connected account's instance), from the latest hourly collection: rank, volume, address, and the topic under untrusted, as third parties wrote it. Use this tool when you need to: find a timely topic to post about.",
    input: ListTrendsInput,
    output: Trends,
    annotations: READS,
    scope: 'read',
    run: async (ctx, args) => listTrends(ctx.pool, ctx.principal, args),
  }),
];
