// /app/api/assets...: the media library's routes for the dashboard, the /v1 media routes
// (api/rest/assets.ts) registered again with the session standing in for the key.
import type { FastifyPluginAsync } from 'fastify';
import { assertRequirement } from '../../core/auth/service.ts';
import { principalOf } from '../auth.ts';
import { assetRoutes } from '../rest/assets.ts';
import { type DashboardDeps, requireSession } from './sessionCookie.ts';

export const libraryRoutes: FastifyPluginAsync<DashboardDeps> = async (app, { pool, media }) => {
  const session = requireSession(pool);
  app.addHook('preHandler', async (req) => {
    await session(req);
    assertRequirement(principalOf(req), req.routeOptions.config.requires);
  });
  await app.register(assetRoutes, { media, security: [{ session: [] }] });
};
