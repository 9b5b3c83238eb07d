// /app/api for the dashboard's making pages: the media library (the /v1 media routes again,
// with the session as the credential), designs, video designs, drawings, jobs and usage.
// Each route calls the core/ function REST or an MCP tool calls; none holds SQL.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Usage, usageOfAccount } from '../../core/accounts/usage.ts';
import type { MediaDeps } from '../../core/assets/service.ts';
import { assertRequirement } from '../../core/auth/access.ts';
import type { BudgetCounter } from '../../core/auth/budget.ts';
import { editLayers } from '../../core/designs/edit.ts';
import { DesignCard, DesignDetail, designDetail, listDesigns } from '../../core/designs/gallery.ts';
import type { RenderWaits } from '../../core/designs/renderWaits.ts';
import {
  CreateDesignInput,
  DesignState,
  EditLayersInput,
  PreviewInput,
} from '../../core/designs/schema.ts';
import { createDesign, previewDesign } from '../../core/designs/standalone.ts';
import {
  ListTemplatesQuery,
  listTemplates,
  TemplateSummary,
} from '../../core/designs/templates.ts';
import {
  UsedVideoTemplate,
  UseVideoTemplateInput,
  useVideoTemplate,
} from '../../core/designs/videoDesigns.ts';
import { listRecentJobs, startVideoExport } from '../../core/designs/videoJobs.ts';
import { listVideoTemplates, VideoTemplateSummary } from '../../core/designs/videoTemplates.ts';
import {
  CreateDrawingInput,
  DrawingSummary,
  DrawingView,
  UpdateDrawingInput,
} from '../../core/drawings/schema.ts';
import {
  createDrawing,
  deleteDrawing,
  getDrawing,
  listBrandDrawings,
  updateDrawing,
} from '../../core/drawings/service.ts';
import { IdInput } from '../../core/ids.ts';
import { Job } from '../../core/jobs/schema.ts';
import { principalOf } from '../auth.ts';
import { assetRoutes } from '../rest/assets.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { requireSession, type SessionDeps } from './index.ts';

export type StudioDeps = SessionDeps & {
  media: MediaDeps;
  renders: RenderWaits;
  budget: BudgetCounter;
};

const security = [{ session: [] }];
const tags = ['dashboard'];
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody };
const ById = z.object({ id: IdInput }).strict();
const ByBrand = z.object({ brand_id: IdInput.optional() }).strict();

export const studioRoutes: FastifyPluginAsync<StudioDeps> = async (base, deps) => {
  const { pool, media, renders, budget } = deps;
  const session = requireSession(pool);
  const designDeps = { pool, publicBaseUrl: media.publicBaseUrl, renders, urlKey: media.urlKey };
  const jobDeps = { ...designDeps, notifications: renders.notifications };

  // The library: the /v1 media routes, the session standing in for the key.
  await base.register(async (library) => {
    library.addHook('preHandler', async (req) => {
      await session(req);
      assertRequirement(principalOf(req), req.routeOptions.config.requires);
    });
    await library.register(assetRoutes, { media, security });
  });

  const app = base.withTypeProvider<ZodTypeProvider>();
  const route = { preHandler: session };

  app.get(
    '/design-templates',
    {
      ...route,
      schema: {
        summary: 'The Canvas templates (a page of 50 from offset) and the video templates',
        tags,
        security,
        querystring: z
          .object({ offset: z.coerce.number().int().min(0).max(10_000).default(0) })
          .strict(),
        response: {
          200: z.object({
            templates: z.array(TemplateSummary),
            video_templates: z.array(VideoTemplateSummary),
          }),
          401: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req) => ({
      templates: listTemplates(
        ListTemplatesQuery.parse({ offset: req.query.offset, limit: 50 }),
        media.publicBaseUrl,
      ).templates,
      video_templates: listVideoTemplates({ offset: 0, limit: 50 }).templates,
    }),
  );

  app.get(
    '/designs',
    {
      ...route,
      schema: {
        summary: "A brand's designs, newest first, with their first rendered page",
        tags,
        security,
        querystring: ByBrand,
        response: { 200: z.object({ designs: z.array(DesignCard) }), ...errors },
      },
    },
    async (req) => ({ designs: await listDesigns(designDeps, principalOf(req), req.query) }),
  );

  app.post(
    '/designs',
    {
      ...route,
      schema: {
        summary: 'Create a design from a template and render it (MCP create_design)',
        tags,
        security,
        body: CreateDesignInput,
        response: { 201: DesignState, ...errors },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await createDesign(designDeps, principalOf(req), req.body)),
  );

  app.get(
    '/designs/:id',
    {
      ...route,
      schema: {
        summary: 'One design: its layers and its rendered pages',
        tags,
        security,
        params: ById,
        response: { 200: DesignDetail, ...errors },
      },
    },
    async (req) => designDetail(designDeps, principalOf(req), req.params.id),
  );

  app.post(
    '/designs/layers',
    {
      ...route,
      schema: {
        summary: "Edit a design's layers and re-render it (MCP edit_layers)",
        tags,
        security,
        body: EditLayersInput,
        response: { 200: DesignState, ...errors },
      },
    },
    async (req) => editLayers(designDeps, principalOf(req), req.body),
  );

  app.post(
    '/designs/preview',
    {
      ...route,
      schema: {
        summary:
          "A design's page, or a video design's poster frames, as images (MCP preview_design)",
        tags,
        security,
        body: PreviewInput,
        response: {
          200: z.object({
            images: z.array(z.string()).describe('data: URLs of JPEG images.'),
            times: z.array(z.number()).nullable(),
          }),
          ...errors,
        },
      },
    },
    async (req) => {
      const { page, times, ...ref } = req.body;
      const preview = await previewDesign(
        { ...jobDeps, storage: media.storage },
        principalOf(req),
        ref,
        { page, times },
      );
      return {
        images: preview.images.map((i) => `data:image/jpeg;base64,${i.toString('base64')}`),
        times: preview.times,
      };
    },
  );

  app.post(
    '/designs/:id/export',
    {
      ...route,
      schema: {
        summary: "Export a video design's current layout (MCP export_video); follow the job",
        tags,
        security,
        params: ById,
        response: { 202: Job, ...errors },
      },
    },
    async (req, reply) =>
      reply
        .code(202)
        .send(await startVideoExport(jobDeps, principalOf(req), { design_id: req.params.id })),
  );

  app.post(
    '/video-designs',
    {
      ...route,
      schema: {
        summary: 'A video design from a template and a draft post of it (MCP use_video_template)',
        tags,
        security,
        body: UseVideoTemplateInput,
        response: { 201: UsedVideoTemplate, ...errors },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await useVideoTemplate({ pool }, principalOf(req), req.body)),
  );

  app.get(
    '/drawings',
    {
      ...route,
      schema: {
        summary: "A brand's drawings, newest first (MCP list_drawings)",
        tags,
        security,
        querystring: ByBrand,
        response: { 200: z.object({ drawings: z.array(DrawingSummary) }), ...errors },
      },
    },
    async (req) =>
      listBrandDrawings(pool, principalOf(req), {
        brand_id: req.query.brand_id ?? principalOf(req).selectedBrandId ?? undefined,
        offset: 0,
        limit: 50,
      }),
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
          .object({ stroke_offset: z.coerce.number().int().min(0).max(2_000).default(0) })
          .strict(),
        response: {
          200: DrawingView.extend({
            stroke_count: z.number().int(),
            next_stroke_offset: z.number().int().nullable(),
          }),
          ...errors,
        },
      },
    },
    async (req) => getDrawing(pool, principalOf(req), req.params.id, req.query.stroke_offset),
  );

  app.patch(
    '/drawings',
    {
      ...route,
      schema: {
        summary: "Change a drawing's strokes or title at the version read (MCP update_drawing)",
        tags,
        security,
        body: UpdateDrawingInput,
        response: { 200: DrawingView, ...errors },
      },
    },
    async (req) => updateDrawing(pool, principalOf(req), req.body),
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
        response: {
          200: z.object({
            drawing_id: z.string(),
            deleted: z.literal(true),
            designs: z.array(z.string()),
          }),
          ...errors,
        },
      },
    },
    async (req) =>
      deleteDrawing(pool, principalOf(req), { drawing_id: req.params.id, force: req.query.force }),
  );

  app.get(
    '/jobs',
    {
      ...route,
      schema: {
        summary: "The account's newest 50 jobs with their progress (as job_status answers each)",
        tags,
        security,
        response: { 200: z.object({ jobs: z.array(Job) }), 401: ErrorBody },
      },
    },
    async (req) => ({ jobs: await listRecentJobs(designDeps, principalOf(req)) }),
  );

  app.get(
    '/usage',
    {
      ...route,
      schema: {
        summary: 'Plan, credits, storage and the request budget (MCP get_usage)',
        tags,
        security,
        response: { 200: Usage, 401: ErrorBody },
      },
    },
    async (req) => usageOfAccount(pool, principalOf(req), budget),
  );
};
