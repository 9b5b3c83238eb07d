// /app/api/compose and /app/api/measure: the compose page writes one text for several
// platforms, and sees its length counted each platform's way as it types.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { measureText } from '../../core/kernel/platforms.ts';
import { ComposeInput, Post, PostWarnings } from '../../core/posts/schema.ts';
import { composePosts } from '../../core/posts/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];

export const composeRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const session = requireSession(pool);

  app.post(
    '/compose',
    {
      preHandler: session,
      schema: {
        summary:
          'One text as a post for each platform: drafts, at a time, or at each next free slot',
        tags,
        security,
        body: ComposeInput,
        response: {
          201: z.object({ posts: z.array(Post), warnings: PostWarnings }),
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await composePosts(pool, principalOf(req), req.body)),
  );

  app.post(
    '/measure',
    {
      preHandler: session,
      schema: {
        summary: "A text's length on each platform, counted its way, and each one's limit",
        tags,
        security,
        body: z.object({ text: z.string().max(20_000) }).strict(),
        response: {
          200: z.record(
            z.string(),
            z.object({ length: z.number(), max: z.number(), unit: z.string() }),
          ),
          401: ErrorBody,
          403: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => measureText(req.body.text),
  );
};
