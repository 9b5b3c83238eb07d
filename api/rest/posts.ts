// /v1/posts (SPEC.md: "REST: account and posts"). Domain: core/posts/service.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DesignDeps } from '../../core/designs/service.ts';
import {
  ListPostsQuery,
  Post,
  PostStatusChange,
  RejectPostInput,
} from '../../core/posts/schema.ts';
import {
  createPostWithWarnings,
  favoritePost,
  listPosts,
  rejectPost,
  unfavoritePost,
} from '../../core/posts/service.ts';
import { CreatedPostReceipt, NativePostInput } from '../../core/templates/schema.ts';
import { createNativePost, isNativePost, receiptOf } from '../../core/templates/service.ts';
import { type AuthContext, confirmBearer, principalOf, withRememberedKey } from '../auth.ts';
import { bearerErrors, bearerSecurity, ErrorBody } from './schemas.ts';

const PostParams = z.object({ post_id: z.string().describe('Post id.') });
const common = { tags: ['posts'], security: bearerSecurity };
const read = { requires: { scope: 'read' } } as const;
const publish = { requires: { scope: 'publish' } } as const;

export const postRoutes: FastifyPluginAsync<{ auth: AuthContext; designs: DesignDeps }> = async (
  base,
  { auth, designs },
) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const { pool } = auth;

  app.get(
    '/posts',
    {
      config: read,
      schema: {
        ...common,
        summary: 'List posts of one status, newest first (no cursor; at most 100)',
        querystring: ListPostsQuery,
        response: { 200: z.array(Post), 404: ErrorBody, 422: ErrorBody, ...bearerErrors },
      },
    },
    async (req) => listPosts(pool, principalOf(req), req.query),
  );

  app.post(
    '/posts',
    {
      // A plain draft's insert confirms the caller's key too: one round trip (api/auth.ts).
      config: { ...publish, foldsKeyCheck: true },
      schema: {
        ...common,
        summary:
          'Create a draft, or a scheduled post when schedule_at is given; with layout, template or design_id, an image draft rendered from a native Canvas design',
        body: NativePostInput,
        response: {
          201: CreatedPostReceipt,
          404: ErrorBody,
          422: ErrorBody,
          ...bearerErrors,
        },
      },
    },
    async (req, reply) => {
      reply.code(201);
      const body = req.body;
      // A native post renders before it inserts: it goes on a freshly looked-up key.
      if (isNativePost(body))
        return createNativePost(designs, await confirmBearer(auth, req, reply), body);
      const { post, warnings } = await withRememberedKey(auth, req, reply, (caller) =>
        createPostWithWarnings(pool, caller, body),
      );
      return { ...receiptOf(post), ...(warnings.length ? { warnings } : {}) };
    },
  );

  const starred = {
    config: publish,
    schema: {
      ...common,
      params: PostParams,
      response: { 200: Post, 404: ErrorBody, ...bearerErrors },
    },
  };
  app.post(
    '/posts/:post_id/favorite',
    { ...starred, schema: { ...starred.schema, summary: 'Star a post (sets favorited_at)' } },
    async (req) => favoritePost(pool, principalOf(req), req.params.post_id),
  );
  app.delete(
    '/posts/:post_id/favorite',
    { ...starred, schema: { ...starred.schema, summary: 'Unstar a post (clears favorited_at)' } },
    async (req) => unfavoritePost(pool, principalOf(req), req.params.post_id),
  );

  app.post(
    '/posts/:post_id/reject',
    {
      config: publish,
      schema: {
        ...common,
        summary: 'Reject a post (any status but publishing and published)',
        params: PostParams,
        body: RejectPostInput.nullish(),
        response: {
          200: PostStatusChange,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
          ...bearerErrors,
        },
      },
    },
    async (req) => rejectPost(pool, principalOf(req), req.params.post_id, req.body ?? {}),
  );
};
