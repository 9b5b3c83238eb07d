// /app/api/board: a brand's posts by status, one column per status, for the board page.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdInput } from '../../core/kernel/ids.ts';
import { POST_STATUSES, PostView } from '../../core/posts/schema.ts';
import { listPosts, toPostView } from '../../core/posts/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];
const BOARD_LIMIT = 50;

const Board = z.object({
  brand_id: z.string().nullable(),
  columns: z.object(
    Object.fromEntries(POST_STATUSES.map((status) => [status, z.array(PostView)])) as Record<
      (typeof POST_STATUSES)[number],
      z.ZodArray<typeof PostView>
    >,
  ),
});

export const boardRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/board',
    {
      preHandler: requireSession(pool),
      schema: {
        summary: "A brand's posts by status (the newest 50 of each), for the board",
        tags,
        security,
        querystring: z.object({ brand_id: IdInput.optional() }).strict(),
        response: { 200: Board, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (req) => {
      const caller = principalOf(req);
      const columns = Object.fromEntries(
        await Promise.all(
          POST_STATUSES.map(async (status) => [
            status,
            (
              await listPosts(pool, caller, {
                status_filter: status,
                limit: BOARD_LIMIT,
                brand_id: req.query.brand_id,
              })
            ).map(toPostView),
          ]),
        ),
      );
      return { brand_id: req.query.brand_id ?? caller.selectedBrandId, columns };
    },
  );
};
