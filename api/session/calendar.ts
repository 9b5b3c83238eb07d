// /app/api/calendar: a brand's scheduled and published posts between two times, for the
// calendar page's week and month views.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdInput } from '../../core/kernel/ids.ts';
import { Post } from '../../core/posts/schema.ts';
import { calendarPosts } from '../../core/posts/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];

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

export const calendarRoutes: FastifyPluginAsync<SessionDeps> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/calendar',
    {
      preHandler: requireSession(pool),
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
};
