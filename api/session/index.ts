// Dashboard session routes (CONTRACT.md): /auth, /apikeys, /webhooks, /competitors, /app/api.
// Each route file holds one resource; the guards they sit behind are in guard.ts and
// sessionCookie.ts. This file only composes them: which routes sit behind which hooks.
import type { FastifyPluginAsync } from 'fastify';
import { activityRoutes } from './activity.ts';
import { analyticsRoutes } from './analytics.ts';
import { apiKeyRoutes } from './apikeys.ts';
import { authRoutes } from './auth.ts';
import { boardRoutes } from './board.ts';
import { calendarRoutes } from './calendar.ts';
import { competitorRoutes } from './competitors.ts';
import { composeRoutes } from './compose.ts';
import { connectCallbackRoutes } from './connectCallback.ts';
import { connectionRoutes } from './connections.ts';
import { designRoutes } from './designs.ts';
import { drawingRoutes } from './drawings.ts';
import { dashboardGuard, sessionOriginGuard } from './guard.ts';
import { libraryRoutes } from './library.ts';
import { oauthClientRoutes } from './oauthClients.ts';
import { postRoutes } from './posts.ts';
import { sessionViewRoutes } from './session.ts';
import { type DashboardDeps, sessionWithinBudget } from './sessionCookie.ts';
import { webhookRoutes } from './webhooks.ts';

export const sessionRoutes: FastifyPluginAsync<DashboardDeps> = async (app, deps) => {
  app.addHook('onRequest', sessionOriginGuard(deps.config));
  await app.register(authRoutes, deps);
  // Sign-in and the session's own routes (/auth) stay outside the budget: a spent minute
  // never locks a person out of signing in or out.
  await app.register(async (budgeted) => {
    budgeted.addHook('onRequest', sessionWithinBudget(deps));
    // The OAuth platforms' redirect back: a GET that reads the session, outside /app/api's
    // guard, counted like the session's other requests.
    await budgeted.register(connectCallbackRoutes, deps);
    await budgeted.register(apiKeyRoutes, deps);
    await budgeted.register(webhookRoutes, deps);
    await budgeted.register(competitorRoutes, deps);
  });
  // The dashboard's routes, and the key, webhook and competitor routes again for its pages, under the
  // CSRF guard (CONTRACT.md: /app/api has the same session and Origin rules plus a token).
  await app.register(
    async (dashboard) => {
      // Before the body is read: a request with no session or no token costs no parsing.
      dashboard.addHook('onRequest', dashboardGuard(deps.config));
      // After the guard: a request it refuses costs the account nothing.
      dashboard.addHook('onRequest', sessionWithinBudget(deps));
      // Answers hold signed addresses and account data: no cache keeps them, unless a route
      // says otherwise (a thumbnail's bytes).
      dashboard.addHook('onSend', async (_req, reply) => {
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      });
      await dashboard.register(sessionViewRoutes, deps);
      await dashboard.register(boardRoutes, deps);
      await dashboard.register(postRoutes, deps);
      await dashboard.register(composeRoutes, deps);
      await dashboard.register(calendarRoutes, deps);
      await dashboard.register(connectionRoutes, deps);
      await dashboard.register(oauthClientRoutes, deps);
      await dashboard.register(analyticsRoutes, deps);
      await dashboard.register(apiKeyRoutes, deps);
      await dashboard.register(webhookRoutes, deps);
      await dashboard.register(competitorRoutes, deps);
      await dashboard.register(libraryRoutes, deps);
      await dashboard.register(designRoutes, deps);
      await dashboard.register(drawingRoutes, deps);
      await dashboard.register(activityRoutes, deps);
    },
    { prefix: '/app/api' },
  );
};
