// /apikeys: create (the key is shown once), list (never the key), delete (fails at once).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ApiKeyCreated,
  ApiKeyInfo,
  CreateApiKeyInput,
  createApiKey,
  deleteApiKey,
  listApiKeys,
} from '../../core/apikeys/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody, NoContent } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './sessionCookie.ts';

const security = [{ session: [] }];

export const apiKeyRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.addHook('preHandler', requireSession(pool));

  app.post(
    '/apikeys',
    {
      schema: {
        summary: 'Create an API key; the response is the only time the key is shown',
        tags: ['api keys'],
        security,
        body: CreateApiKeyInput,
        response: { 201: ApiKeyCreated, 401: ErrorBody, 422: ErrorBody },
      },
    },
    async (req, reply) => {
      const created = await createApiKey(pool, principalOf(req).accountId, req.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/apikeys',
    {
      schema: {
        summary: "The account's API keys (never the key itself)",
        tags: ['api keys'],
        security,
        response: { 200: z.array(ApiKeyInfo), 401: ErrorBody },
      },
    },
    async (req) => listApiKeys(pool, principalOf(req).accountId),
  );

  app.delete(
    '/apikeys/:id',
    {
      schema: {
        summary: 'Delete an API key; it fails on the very next request',
        tags: ['api keys'],
        security,
        params: z.object({ id: z.string() }),
        response: { 204: NoContent, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      await deleteApiKey(pool, principalOf(req).accountId, req.params.id);
      return reply.code(204).send(null);
    },
  );
};
