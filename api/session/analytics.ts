// /app/api/analytics: a brand's results over a range and its best hours of the week, for the
// analytics page (the figures of MCP get_analytics and get_best_times).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Analytics, AnalyticsInput, BestTimes } from '../../core/metrics/schema.ts';
import { getAnalytics, getBestTimes } from '../../core/metrics/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];

export const analyticsRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/analytics',
    {
      preHandler: requireSession(pool),
      schema: {
        summary:
          "A brand's results over a range and its best hours of the week, for the analytics page",
        tags,
        security,
        querystring: AnalyticsInput,
        response: {
          200: z.object({ analytics: Analytics, best_times: BestTimes }),
          401: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => {
      const caller = principalOf(req);
      const [analytics, best_times] = await Promise.all([
        getAnalytics(pool, caller, req.query),
        getBestTimes(pool, caller, { brand_id: req.query.brand_id, platform: req.query.platform }),
      ]);
      return { analytics, best_times };
    },
  );
};
