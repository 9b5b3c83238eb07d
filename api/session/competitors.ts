// /competitors (dashboard session only, CONTRACT.md "More session routes"): the competitor
// profiles a brand tracks, added, listed and removed. Domain: core/competitors/.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AddCompetitorInput,
  Competitor,
  ListCompetitorsQuery,
} from '../../core/competitors/schema.ts';
import {
  addCompetitor,
  listCompetitors,
  removeCompetitor,
} from '../../core/competitors/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody, NoContent } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['competitors'];

export const competitorRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.addHook('preHandler', requireSession(pool));

  app.post(
    '/competitors',
    {
      schema: {
        summary: 'Track a competitor profile for a brand (at most 20 a brand)',
        tags,
        security,
        body: AddCompetitorInput,
        response: {
          201: Competitor,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await addCompetitor(pool, principalOf(req), req.body)),
  );

  app.get(
    '/competitors',
    {
      schema: {
        summary: "A brand's tracked competitor profiles",
        tags,
        security,
        querystring: ListCompetitorsQuery,
        response: { 200: z.array(Competitor), 401: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (req) => listCompetitors(pool, principalOf(req), req.query),
  );

  app.delete(
    '/competitors/:id',
    {
      schema: {
        summary: 'Stop tracking a competitor profile',
        tags,
        security,
        params: z.object({ id: z.string() }),
        response: { 204: NoContent, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      await removeCompetitor(pool, principalOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
};
