// /app/api for the drawings pages: a brand's drawings, one drawing a page of strokes at a time,
// create, change at the version read, delete. Each route calls the core/ function of the MCP
// tool named in its summary.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { designsShowing } from '../../core/designs/service.ts';
import {
  CreateDrawingInput,
  DeletedDrawing,
  DrawingChanges,
  DrawingPage,
  DrawingSummary,
  DrawingView,
  MAX_STROKE_POINTS,
  MAX_STROKES,
} from '../../core/drawings/schema.ts';
import {
  createDrawing,
  deleteDrawing,
  getDrawing,
  listBrandDrawings,
  updateDrawing,
} from '../../core/drawings/service.ts';
import { IdInput } from '../../core/kernel/ids.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { type DashboardDeps, requireSession } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody };
const ById = z.object({ id: IdInput }).strict();
/** Drawings a list page shows. */
export const DRAWINGS_PAGE = 50;

export const drawingRoutes: FastifyPluginAsync<DashboardDeps> = async (base, { pool }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const route = { preHandler: requireSession(pool) };

  app.get(
    '/drawings',
    {
      ...route,
      schema: {
        summary: `A page of ${DRAWINGS_PAGE} drawings of a brand, newest first (MCP list_drawings)`,
        tags,
        security,
        querystring: z
          .object({
            brand_id: IdInput.optional().describe('Omitted: every brand.'),
            offset: z.coerce.number().int().min(0).max(100_000).default(0),
          })
          .strict(),
        response: { 200: z.object({ drawings: z.array(DrawingSummary) }), ...errors },
      },
    },
    async (req) =>
      listBrandDrawings(pool, principalOf(req), { ...req.query, limit: DRAWINGS_PAGE }),
  );

  app.post(
    '/drawings',
    {
      ...route,
      schema: {
        summary: 'Create a drawing (MCP create_drawing)',
        tags,
        security,
        body: CreateDrawingInput,
        response: { 201: DrawingView, ...errors },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await createDrawing(pool, principalOf(req), req.body)),
  );

  app.get(
    '/drawings/:id',
    {
      ...route,
      schema: {
        summary: 'A drawing with a page of its strokes (MCP get_drawing)',
        tags,
        security,
        params: ById,
        querystring: z
          .object({
            stroke_offset: z.coerce.number().int().min(0).max(MAX_STROKES).default(0),
            point_offset: z.coerce
              .number()
              .int()
              .min(0)
              .max(MAX_STROKE_POINTS - 1)
              .default(0),
          })
          .strict(),
        response: { 200: DrawingPage, ...errors },
      },
    },
    async (req) => getDrawing(pool, principalOf(req), req.params.id, req.query),
  );

  app.patch(
    '/drawings/:id',
    {
      ...route,
      schema: {
        summary: "Change a drawing's strokes or title at the version read (MCP update_drawing)",
        tags,
        security,
        params: ById,
        body: DrawingChanges,
        response: { 200: DrawingView, ...errors },
      },
    },
    async (req) =>
      updateDrawing(pool, principalOf(req), { ...req.body, drawing_id: req.params.id }),
  );

  app.delete(
    '/drawings/:id',
    {
      ...route,
      schema: {
        summary: 'Delete a drawing (MCP delete_drawing)',
        tags,
        security,
        params: ById,
        querystring: z.object({ force: z.stringbool().default(false) }).strict(),
        response: { 200: DeletedDrawing, ...errors },
      },
    },
    async (req) =>
      deleteDrawing(
        pool,
        principalOf(req),
        { drawing_id: req.params.id, force: req.query.force },
        designsShowing,
      ),
  );
};
