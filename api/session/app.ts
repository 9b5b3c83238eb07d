// /app/api: the dashboard's data (issue 22), for its pages served at /. Session routes like
// /webhooks (a bearer credential is refused), and a state-changing request needs both a
// same-origin `Origin` (present, not merely not foreign) and the session's CSRF token in
// `X-CSRF-Token` (`dashboardGuard`, on the whole /app/api scope: these routes and the key and
// webhook routes registered there again). Each route calls the same core/ function as REST,
// GraphQL and MCP.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { selectBrand, signupOpen } from '../../core/accounts/service.ts';
import { SessionView, sessionView } from '../../core/accounts/sessionView.ts';
import { AuditEntry, listAudit } from '../../core/audit/service.ts';
import { requireBrandFor } from '../../core/brands/service.ts';
import {
  ConnectedAccount,
  connectAccount,
  listConnectedAccounts,
} from '../../core/connections/service.ts';
import { forbidden } from '../../core/kernel/errors.ts';
import { IdInput } from '../../core/kernel/ids.ts';
import { measureText } from '../../core/kernel/platforms.ts';
import { getAnalytics, getBestTimes } from '../../core/metrics/insight.ts';
import { Analytics, AnalyticsInput, BestTimes } from '../../core/metrics/schema.ts';
import {
  AuthorizedClient,
  listAuthorizedClients,
  revokeAuthorizedClient,
} from '../../core/oauth/service.ts';
import {
  ComposeInput,
  CreatePostInput,
  POST_STATUSES,
  Post,
  RejectPostInput,
  SchedulePostInput,
} from '../../core/posts/schema.ts';
import {
  approvePost,
  calendarPosts,
  composePosts,
  createPost,
  favoritePost,
  getPost,
  listPosts,
  rejectPost,
  schedulePost,
  unfavoritePost,
} from '../../core/posts/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody, NoContent } from '../rest/schemas.ts';
import { requireSession, type SessionDeps, sessionRequired, sessionToken } from './index.ts';

/** The session's CSRF token: derived from its (HttpOnly) token, so a page elsewhere cannot know it. */
export const csrfTokenOf = (session: string) =>
  createHash('sha256').update(`csrf:${session}`).digest('base64url');

const security = [{ session: [] }];
const tags = ['dashboard'];
const BOARD_LIMIT = 50;

const ById = z.object({ id: IdInput }).strict();
/** What connecting takes per platform (CONTRACT.md, the operator CLI's connect). */
const ConnectInput = z.discriminatedUnion('platform', [
  z
    .object({
      platform: z.literal('bluesky'),
      brand_id: IdInput.optional(),
      config: z
        .object({
          service: z.url({ protocol: /^https?$/ }).max(2000),
          identifier: z.string().trim().min(1).max(300),
          app_password: z.string().min(1).max(200),
        })
        .strict(),
    })
    .strict(),
  z
    .object({
      platform: z.literal('mastodon'),
      brand_id: IdInput.optional(),
      config: z
        .object({
          instance: z.url({ protocol: /^https?$/ }).max(2000),
          access_token: z.string().min(1).max(500),
        })
        .strict(),
    })
    .strict(),
]);
/** A calendar bound: an ISO time between 2000 and 2100, passed on in UTC. */
const Bound = z.iso
  .datetime({ offset: true })
  .refine((t) => {
    const ms = Date.parse(t);
    return ms >= Date.UTC(2000, 0, 1) && ms < Date.UTC(2100, 0, 1);
  }, 'a time between 2000 and 2100')
  .transform((t) => new Date(t).toISOString());

/** At most 42 days: a month view with the days around it. */
const CalendarQuery = z
  .object({
    brand_id: IdInput.optional(),
    from: Bound,
    to: Bound,
  })
  .strict()
  .refine((q) => Date.parse(q.to) > Date.parse(q.from), {
    path: ['to'],
    message: 'must be after from',
  })
  .refine((q) => Date.parse(q.to) - Date.parse(q.from) <= 42 * 86_400_000, {
    path: ['to'],
    message: 'a range of at most 42 days',
  });
const Board = z.object({
  brand_id: z.string().nullable(),
  columns: z.object(
    Object.fromEntries(POST_STATUSES.map((status) => [status, z.array(Post)])) as Record<
      (typeof POST_STATUSES)[number],
      z.ZodArray<typeof Post>
    >,
  ),
});

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The /app/api scope's preHandler: a state-changing request comes from a page of ours (its
 * Origin) and carries the session's CSRF token; a request without a session is a 401.
 */
export function dashboardGuard(config: SessionDeps['config']) {
  const origin = new URL(config.publicBaseUrl).origin;
  return async (req: FastifyRequest) => {
    if (!STATE_CHANGING.has(req.method)) return;
    const token = sessionToken(req);
    if (!token) throw sessionRequired('Sign in to the dashboard first.');
    if (req.headers.origin !== origin)
      throw forbidden('origin_required', `Send this from a page of ${origin} (its Origin header).`);
    const sent = Buffer.from(String(req.headers['x-csrf-token'] ?? ''));
    const expected = Buffer.from(csrfTokenOf(token));
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
      throw forbidden(
        'csrf_required',
        "The X-CSRF-Token header is missing or stale: send the csrf_token that GET /app/api/session answers for this session (the dashboard's page reloads it).",
      );
  };
}

/** The dashboard's own routes, under the /app/api prefix. */
export const appRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool, config }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();

  const session = requireSession(pool);

  app.get(
    '/signup',
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
    '/session',
    {
      preHandler: session,
      schema: {
        summary: 'The signed-in account, its brands and the CSRF token for its requests',
        tags,
        security,
        response: { 200: SessionView.extend({ csrf_token: z.string() }), 401: ErrorBody },
      },
    },
    async (req, reply) => {
      // It carries the CSRF token: no cache keeps it.
      reply.header('cache-control', 'no-store');
      return {
        ...(await sessionView(pool, principalOf(req).accountId)),
        csrf_token: csrfTokenOf(sessionToken(req)!),
      };
    },
  );

  app.get(
    '/board',
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
          201: z.object({ posts: z.array(Post) }),
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send({ posts: await composePosts(pool, principalOf(req), req.body) }),
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
    '/calendar',
    {
      preHandler: session,
      schema: {
        summary: "A brand's scheduled and published posts between two times (a week, a month)",
        tags,
        security,
        querystring: CalendarQuery,
        response: {
          200: z.object({ posts: z.array(Post) }),
          401: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => ({ posts: await calendarPosts(pool, principalOf(req), req.query) }),
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
          200: z.object({ post: Post, audit: z.array(AuditEntry) }),
          401: ErrorBody,
          404: ErrorBody,
        },
      },
    },
    async (req) => {
      const caller = principalOf(req);
      const post = await getPost(pool, caller, req.params.id);
      const audit = await listAudit(pool, caller.accountId, { post_id: post.id, limit: 200 });
      return { post, audit };
    },
  );

  app.put(
    '/session/brand',
    {
      preHandler: session,
      schema: {
        summary: 'Select the brand the pages (and brand_id-less calls) work on',
        tags,
        security,
        body: z.object({ brand_id: IdInput }).strict(),
        response: {
          200: SessionView,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => {
      const { accountId } = principalOf(req);
      await selectBrand(pool, accountId, req.body.brand_id);
      return sessionView(pool, accountId);
    },
  );

  app.get(
    '/accounts',
    {
      preHandler: session,
      schema: {
        summary: "A brand's connected platform accounts and their health",
        tags,
        security,
        querystring: z.object({ brand_id: IdInput.optional() }).strict(),
        response: {
          200: z.array(ConnectedAccount),
          401: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => {
      const caller = principalOf(req);
      const brand = await requireBrandFor(pool, caller, req.query.brand_id);
      return listConnectedAccounts(pool, caller.accountId, brand.id);
    },
  );

  app.post(
    '/accounts',
    {
      preHandler: session,
      schema: {
        summary: 'Connect (or reconnect) a Bluesky or Mastodon account, checked with the platform',
        tags,
        security,
        body: ConnectInput,
        response: {
          201: z.object({ id: z.string(), platform: z.string(), handle: z.string() }),
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
          501: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const caller = principalOf(req);
      const brand = await requireBrandFor(pool, caller, req.body.brand_id);
      const connected = await connectAccount(
        pool,
        config,
        {
          accountId: caller.accountId,
          brandId: brand.id,
          platform: req.body.platform,
          config: req.body.config,
        },
        req.log,
      );
      return reply.code(201).send(connected);
    },
  );

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

  app.get(
    '/analytics',
    {
      preHandler: session,
      schema: {
        summary:
          "A brand's results over a range and its best hours of the week, for the analytics page",
        tags,
        security,
        querystring: AnalyticsInput,
        response: {
          200: z.object({ analytics: Analytics, best_times: BestTimes }),
          401: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => {
      const caller = principalOf(req);
      const [analytics, best_times] = await Promise.all([
        getAnalytics(pool, caller, req.query),
        getBestTimes(pool, caller, { brand_id: req.query.brand_id, platform: req.query.platform }),
      ]);
      return { analytics, best_times };
    },
  );
};
