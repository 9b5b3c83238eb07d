// /app/api for the jobs and usage pages: the account's newest jobs with their progress, and
// its plan, credits, storage and request budget (MCP get_usage's figures).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';

import { Job } from '../../core/jobs/schema.ts';
import { listRecentJobs } from '../../core/jobs/service.ts';
import { Usage, usageOfAccount } from '../../core/usage/service.ts';
import { jobView } from '../../core/video/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { type DashboardDeps, requireSession } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];

export const activityRoutes: FastifyPluginAsync<DashboardDeps> = async (base, deps) => {
  const { pool, media, budget } = deps;
  const app = base.withTypeProvider<ZodTypeProvider>();
  const route = { preHandler: requireSession(pool) };

  app.get(
    '/jobs',
    {
      ...route,
      schema: {
        summary: "The account's newest 50 jobs with their progress (as job_status answers each)",
        tags,
        security,
        response: { 200: z.object({ jobs: z.array(Job) }), 401: ErrorBody },
      },
    },
    async (req) => ({ jobs: await listRecentJobs(pool, jobView(media), principalOf(req)) }),
  );

  app.get(
    '/usage',
    {
      ...route,
      schema: {
        summary: 'Plan, credits, storage and the request budget (MCP get_usage)',
        tags,
        security,
        response: { 200: Usage, 401: ErrorBody },
      },
    },
    async (req) => usageOfAccount(pool, principalOf(req), budget),
  );
};
