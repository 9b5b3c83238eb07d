// /app/api/posts: one post (with its audit trail), creating one, and the board's actions on it
// (approve, reject, favorite, schedule). Each calls the core/ operation REST, GraphQL and MCP do.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AuditEntry, listAudit } from '../../core/audit/service.ts';
import { IdInput } from '../../core/kernel/ids.ts';
import {
  CreatePostInput,
  Post,
  PostView,
  RejectPostInput,
  SchedulePostInput,
} from '../../core/posts/schema.ts';
import {
  approvePost,
  createPost,
  favoritePost,
  getPost,
  rejectPost,
  schedulePost,
  toPostView,
  unfavoritePost,
} from '../../core/posts/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];

const ById = z.object({ id: IdInput }).strict();

export const postRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const session = requireSession(pool);

  app.post(
    '/posts/:id/approve',
    {
      preHandler: session,
      schema: {
        summary: 'Approve a draft or rejected post',
        tags,
        security,
        params: ById,
        response: { 200: Post, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
      },
    },
    async (req) => approvePost(pool, principalOf(req), req.params.id),
  );

  app.post(
    '/posts/:id/reject',
    {
      preHandler: session,
      schema: {
        summary: 'Reject a post, with an optional reason',
        tags,
        security,
        params: ById,
        body: RejectPostInput,
        response: {
          200: Post,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => rejectPost(pool, principalOf(req), req.params.id, req.body),
  );

  for (const [method, favorite] of [
    ['POST', true],
    ['DELETE', false],
  ] as const)
    app.route({
      method,
      url: '/posts/:id/favorite',
      preHandler: session,
      schema: {
        summary: favorite ? 'Mark a post as a favorite' : "Clear a post's favorite mark",
        tags,
        security,
        params: ById,
        response: { 200: Post, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
      handler: async (req) =>
        (favorite ? favoritePost : unfavoritePost)(pool, principalOf(req), req.params.id),
    });

  app.post(
    '/posts',
    {
      preHandler: session,
      schema: {
        summary: 'Create a post (a draft, or scheduled at schedule_at) for one platform',
        tags,
        security,
        body: CreatePostInput,
        response: { 201: Post, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (req, reply) => reply.code(201).send(await createPost(pool, principalOf(req), req.body)),
  );

  app.post(
    '/posts/:id/schedule',
    {
      preHandler: session,
      schema: {
        summary: 'Schedule (or move) a post at `when`, or at the next free slot',
        tags,
        security,
        params: ById,
        body: SchedulePostInput,
        response: {
          200: Post,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => schedulePost(pool, principalOf(req), req.params.id, req.body),
  );

  app.get(
    '/posts/:id',
    {
      preHandler: session,
      schema: {
        summary: 'One post with its audit trail (every transition and who made it)',
        tags,
        security,
        params: ById,
        response: {
          200: z.object({ post: PostView, audit: z.array(AuditEntry) }),
          401: ErrorBody,
          404: ErrorBody,
        },
      },
    },
    async (req) => {
      const caller = principalOf(req);
      const post = await getPost(pool, caller, req.params.id);
      const audit = await listAudit(pool, caller.accountId, { post_id: post.id, limit: 200 });
      return { post: toPostView(post), audit };
    },
  );
};
