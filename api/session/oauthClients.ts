// /app/api/oauth/clients: the OAuth (MCP) clients the account allowed, and revoking one.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AuthorizedClient,
  listAuthorizedClients,
  revokeAuthorizedClient,
} from '../../core/oauth/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody, NoContent } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];

export const oauthClientRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const session = requireSession(pool);

  app.get(
    '/oauth/clients',
    {
      preHandler: session,
      schema: {
        summary: 'The OAuth clients this account allowed, with their scopes and last use',
        tags,
        security,
        response: { 200: z.array(AuthorizedClient), 401: ErrorBody },
      },
    },
    async (req) => listAuthorizedClients(pool, principalOf(req).accountId),
  );

  app.delete(
    '/oauth/clients/:grant_id',
    {
      preHandler: session,
      schema: {
        summary: 'Revoke a client: its grant and every token of it, from the next request on',
        tags,
        security,
        params: z.object({ grant_id: z.string().max(100) }).strict(),
        response: { 204: NoContent, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      await revokeAuthorizedClient(pool, principalOf(req).accountId, req.params.grant_id);
      return reply.code(204).send(null);
    },
  );
};
