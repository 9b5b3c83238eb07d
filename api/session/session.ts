// /app/api/signup, /app/api/session: what the dashboard's pages start from (whether sign-up is
// open, the signed-in account with its brands and CSRF token) and the brand they work on.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SessionView, selectBrand, sessionView, signupOpen } from '../../core/accounts/service.ts';
import { IdInput } from '../../core/kernel/ids.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { csrfTokenOf } from './guard.ts';
import { requireSession, type SessionDeps, sessionToken } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];

export const sessionViewRoutes: FastifyPluginAsync<SessionDeps> = async (
  base,
  { pool, config },
) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const session = requireSession(pool);

  app.get(
    '/signup',
    {
      schema: {
        summary: 'Whether the dashboard offers sign-up now (SIGNUP)',
        tags,
        response: { 200: z.object({ allowed: z.boolean() }) },
      },
    },
    async () => ({ allowed: await signupOpen(pool, config.signup) }),
  );

  app.get(
    '/session',
    {
      preHandler: session,
      schema: {
        summary: 'The signed-in account, its brands and the CSRF token for its requests',
        tags,
        security,
        response: { 200: SessionView.extend({ csrf_token: z.string() }), 401: ErrorBody },
      },
    },
    async (req, reply) => {
      // It carries the CSRF token: no cache keeps it.
      reply.header('cache-control', 'no-store');
      return {
        ...(await sessionView(pool, principalOf(req).accountId)),
        csrf_token: csrfTokenOf(sessionToken(req)!),
      };
    },
  );

  app.put(
    '/session/brand',
    {
      preHandler: session,
      schema: {
        summary: 'Select the brand the pages (and brand_id-less calls) work on',
        tags,
        security,
        body: z.object({ brand_id: IdInput }).strict(),
        response: {
          200: SessionView,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => {
      const { accountId } = principalOf(req);
      await selectBrand(pool, accountId, req.body.brand_id);
      return sessionView(pool, accountId);
    },
  );
};
