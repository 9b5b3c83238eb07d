// /webhooks (dashboard session only): create (the secret is shown once), list (never the
// secret), delete, the delivery log, and replaying a delivery. Domain: core/webhooks/.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import {
  CreateWebhookInput,
  DeliveryAttempt,
  WebhookCreated,
  WebhookEndpoint,
} from '../../core/webhooks/schema.ts';
import {
  createEndpoint,
  deleteEndpoint,
  listAttempts,
  listEndpoints,
  replayDelivery,
} from '../../core/webhooks/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody, NoContent } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['webhooks'];
const EndpointParams = z.object({ id: z.string() });

export const webhookRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool, config }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const policy = outboundPolicy(config, app.log);
  app.addHook('preHandler', requireSession(pool));

  app.post(
    '/webhooks',
    {
      schema: {
        summary: 'Create a webhook endpoint; the response is the only time the secret is shown',
        tags,
        security,
        body: CreateWebhookInput,
        response: {
          201: WebhookCreated,
          401: ErrorBody,
          403: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const created = await createEndpoint(pool, principalOf(req), req.body, policy);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        summary: "The account's webhook endpoints (never the secret)",
        tags,
        security,
        response: { 200: z.array(WebhookEndpoint), 401: ErrorBody },
      },
    },
    async (req) => listEndpoints(pool, principalOf(req).accountId),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Delete a webhook endpoint; its pending deliveries are not sent',
        tags,
        security,
        params: EndpointParams,
        response: { 204: NoContent, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      await deleteEndpoint(pool, principalOf(req).accountId, req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        summary: 'The delivery log of an endpoint: one row an attempt, newest first',
        tags,
        security,
        params: EndpointParams,
        response: { 200: z.array(DeliveryAttempt), 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => listAttempts(pool, principalOf(req).accountId, req.params.id),
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/replay',
    {
      schema: {
        summary: "Send a delivery's event again, as a new delivery with the same body",
        tags,
        security,
        params: EndpointParams.extend({ delivery_id: z.string() }),
        response: { 202: z.object({ delivery_id: z.string() }), 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const replay = await replayDelivery(
        pool,
        principalOf(req).accountId,
        req.params.id,
        req.params.delivery_id,
      );
      return reply.code(202).send(replay);
    },
  );
};
