// GET /v1/me (SPEC.md: REST account and posts). Domain: core/accounts/me.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { describeMe, MeOutput } from '../../core/accounts/service.ts';
import { principalOf } from '../auth.ts';
import { bearerErrors, bearerSecurity } from './schemas.ts';

export const meRoutes: FastifyPluginAsync = async (app) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/me',
    {
      schema: {
        summary: 'The calling credential: account email, effective plan and scopes',
        tags: ['account'],
        security: bearerSecurity,
        response: { 200: MeOutput, ...bearerErrors },
      },
    },
    async (req) => describeMe(principalOf(req)),
  );
};
