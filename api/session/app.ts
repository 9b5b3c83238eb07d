// /app/api: the dashboard's data (issue 22), for its pages served at /. Session routes like
// /webhooks (a bearer credential is refused), and a state-changing request needs both a
// same-origin `Origin` (present, not merely not foreign) and the session's CSRF token in
// `X-CSRF-Token`. Each route calls the same core/ function as REST, GraphQL and MCP.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { signupOpen } from '../../core/accounts/service.ts';
import { SessionView, sessionView } from '../../core/accounts/sessionView.ts';
import { forbidden } from '../../core/errors.ts';
import { IdInput } from '../../core/ids.ts';
import { POST_STATUSES, Post, RejectPostInput } from '../../core/posts/schema.ts';
import { approvePost, listPosts, rejectPost } from '../../core/posts/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { requireSession, type SessionDeps, sessionToken } from './index.ts';

/** The session's CSRF token: derived from its (HttpOnly) token, so a page elsewhere cannot know it. */
export const csrfTokenOf = (session: string) =>
  createHash('sha256').update(`csrf:${session}`).digest('base64url');

const security = [{ session: [] }];
const tags = ['dashboard'];
const BOARD_LIMIT = 50;

const ById = z.object({ id: IdInput }).strict();
const Board = z.object({
  brand_id: z.string().nullable(),
  columns: z.record(z.enum(POST_STATUSES), z.array(Post)),
});

export const appRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool, config }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const origin = new URL(config.publicBaseUrl).origin;

  /** preHandler of state-changing routes: our Origin, and the session's CSRF token. */
  const sameSite = async (req: FastifyRequest) => {
    if (req.headers.origin !== origin)
      throw forbidden('origin_required', `Send this from a page of ${origin} (its Origin header).`);
    const token = sessionToken(req);
    const sent = Buffer.from(String(req.headers['x-csrf-token'] ?? ''));
    const expected = Buffer.from(token ? csrfTokenOf(token) : '');
    if (!token || sent.length !== expected.length || !timingSafeEqual(sent, expected))
      throw forbidden(
        'csrf_required',
        'The X-CSRF-Token header is missing or stale: reload the page.',
      );
  };
  const session = requireSession(pool);

  app.get(
    '/app/api/signup',
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
    '/app/api/session',
    {
      preHandler: session,
      schema: {
        summary: 'The signed-in account, its brands and the CSRF token for its requests',
        tags,
        security,
        response: { 200: SessionView.extend({ csrf_token: z.string() }), 401: ErrorBody },
      },
    },
    async (req) => ({
      ...(await sessionView(pool, principalOf(req).accountId)),
      csrf_token: csrfTokenOf(sessionToken(req)!),
    }),
  );

  app.get(
    '/app/api/board',
    {
      preHandler: session,
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
            await listPosts(pool, caller, {
              status_filter: status,
              limit: BOARD_LIMIT,
              brand_id: req.query.brand_id,
            }),
          ]),
        ),
      );
      return { brand_id: req.query.brand_id ?? caller.selectedBrandId, columns };
    },
  );

  app.post(
    '/app/api/posts/:id/approve',
    {
      preHandler: [session, sameSite],
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
    '/app/api/posts/:id/reject',
    {
      preHandler: [session, sameSite],
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
};
