// /app/api for the designs pages: the template gallery, a brand's designs, one design, its
// layer edits and previews, a video design's export and a video design from a template. Each
// route calls the core/ function of the MCP tool named in its summary.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  DesignCard,
  DesignDetail,
  DesignState,
  LayerEdit,
  ListDesignsQuery,
} from '../../core/designs/schema.ts';
import { designDetail, editLayers, listDesigns } from '../../core/designs/service.ts';
import { Job } from '../../core/jobs/schema.ts';
import { IdInput } from '../../core/kernel/ids.ts';
import { CreateDesignInput, TemplateChoice } from '../../core/templates/schema.ts';
import { createDesign, listTemplates, templateAllowed } from '../../core/templates/service.ts';
import {
  PreviewShow,
  UsedVideoTemplate,
  UseVideoTemplateInput,
  VideoTemplateChoice,
} from '../../core/video/schema.ts';
import {
  listVideoTemplates,
  previewDesign,
  startVideoExport,
  useVideoTemplate,
  videoTemplateAllowed,
} from '../../core/video/service.ts';
import { principalOf } from '../auth.ts';
import { ErrorBody } from '../rest/schemas.ts';
import { type DashboardDeps, requireSession } from './sessionCookie.ts';

const security = [{ session: [] }];
const tags = ['dashboard'];
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody };
const ById = z.object({ id: IdInput }).strict();
/** Templates a gallery page shows. */
const TEMPLATE_PAGE = 50;

export const designRoutes: FastifyPluginAsync<DashboardDeps> = async (base, deps) => {
  const { pool, media, renders } = deps;
  const app = base.withTypeProvider<ZodTypeProvider>();
  const route = { preHandler: requireSession(pool) };
  const designDeps = { pool, publicBaseUrl: media.publicBaseUrl, renders, urlKey: media.urlKey };
  const jobDeps = { ...designDeps, notifications: renders.notifications };

  app.get(
    '/design-templates',
    {
      ...route,
      schema: {
        summary: `The Canvas templates (${TEMPLATE_PAGE} from offset) and the video templates`,
        tags,
        security,
        querystring: z
          .object({ offset: z.coerce.number().int().min(0).max(10_000).default(0) })
          .strict(),
        response: {
          200: z.object({
            templates: z.array(TemplateChoice),
            video_templates: z.array(VideoTemplateChoice),
          }),
          401: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    // Each with whether the caller can use it, so the page does not copy the plan rules.
    async (req) => {
      const caller = principalOf(req);
      const { templates } = listTemplates(
        { offset: req.query.offset, limit: TEMPLATE_PAGE },
        media.publicBaseUrl,
      );
      return {
        templates: templates.map((t) => ({ ...t, allowed: templateAllowed(caller.plan, t) })),
        video_templates: listVideoTemplates({ offset: 0, limit: 50 }).templates.map((t) => ({
          ...t,
          allowed: videoTemplateAllowed(caller, t),
        })),
      };
    },
  );

  app.get(
    '/designs',
    {
      ...route,
      schema: {
        summary: "A page of a brand's designs, newest first, with their first rendered page",
        tags,
        security,
        querystring: ListDesignsQuery,
        response: {
          200: z.object({ designs: z.array(DesignCard), next_offset: z.number().nullable() }),
          ...errors,
        },
      },
    },
    async (req) => listDesigns(designDeps, principalOf(req), req.query),
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
        summary: 'One design: its layers, its whole texts and its rendered pages',
        tags,
        security,
        params: ById,
        response: { 200: DesignDetail, ...errors },
      },
    },
    async (req) => designDetail(designDeps, principalOf(req), req.params.id),
  );

  app.post(
    '/designs/:id/layers',
    {
      ...route,
      schema: {
        summary: "Edit a design's layers and re-render it (MCP edit_layers)",
        tags,
        security,
        params: ById,
        body: LayerEdit,
        response: { 200: DesignState, ...errors },
      },
    },
    async (req) =>
      editLayers(designDeps, principalOf(req), { ...req.body, design_id: req.params.id }),
  );

  app.post(
    '/designs/:id/preview',
    {
      ...route,
      schema: {
        summary: "A design's page, or a video design's poster frames (MCP preview_design)",
        tags,
        security,
        params: ById,
        body: PreviewShow,
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
      const preview = await previewDesign(
        { ...jobDeps, storage: media.storage },
        principalOf(req),
        { design_id: req.params.id },
        req.body,
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
};
