// MCP tools for native Canvas designs (SPEC.md "MCP", Canvas). Each calls one domain function
// of core/designs/, core/templates/ (design_post shared with PATCH /v1/posts/{id}/design) or
// core/video/ (preview_design).
import { z } from 'zod';
import {
  DesignId,
  DesignLayout,
  DesignRef,
  DesignState,
  EditLayersInput,
  LayersView,
  oneTarget,
  PostId,
  RenderWarnings,
} from '../../../core/designs/schema.ts';
import { editLayers, getLayers } from '../../../core/designs/service.ts';
import { CreateDesignInput, TemplateSummary } from '../../../core/templates/schema.ts';
import {
  createDesign,
  editDesign,
  ListTemplatesQuery,
  listTemplates,
} from '../../../core/templates/service.ts';
import { PreviewInput } from '../../../core/video/schema.ts';
import { previewDesign } from '../../../core/video/service.ts';
import { summarisedInOutputs } from '../jsonSchema.ts';
import { defineTool, READS, type ToolContext, TRUNCATION, WRITES } from '../registry.ts';

// design_post spells the design state out; the other tools that change a design say so.
const DesignAnswer = summarisedInOutputs(DesignState, 'The design, as design_post answers it.');

const designDeps = (ctx: ToolContext) => ({
  pool: ctx.pool,
  publicBaseUrl: ctx.media.publicBaseUrl,
  renders: ctx.renders,
});

export const CANVAS_TOOLS = [
  defineTool({
    name: 'list_design_templates',
    title: 'List design templates',
    description:
      'Canvas templates (premium ones need the pro plan), each laid out for any aspect, with its named slots (text, or image: photo, logo). Page by advancing offset by the number of rows returned until a page is empty. Use this tool when you need to: pick a template and its slots for create_design or a post with a template.',
    input: ListTemplatesQuery,
    output: z.object({ templates: z.array(TemplateSummary), ...TRUNCATION }),
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => listTemplates(args, ctx.media.publicBaseUrl),
  }),

  defineTool({
    name: 'get_layers',
    title: 'Get the layers of a design',
    description:
      'A compact list of the layers of a design (by post_id or design_id), with layout_version. Use this tool when you need to: find the index or cid of a layer before edit_layers, or read the current layout_version.',
    input: DesignRef,
    output: LayersView.extend(TRUNCATION),
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => getLayers(ctx.pool, ctx.principal, args),
  }),

  defineTool({
    name: 'create_design',
    title: 'Create a design',
    description:
      "Creates a design master for a brand from a template (default blank), its slots filled from `slots` (headline: shorthand), in the brand kit's colours, fonts and logo; unfilled slots are removed. Renders it: render_warnings names text that did not fit. No post is created and nothing is scheduled; link posts to it with POST /v1/posts and design_id, or edit it with edit_layers and design_post (design_id). Use this tool when you need to: start a graphic to reuse across several posts.",
    input: CreateDesignInput,
    output: DesignAnswer,
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: false },
    run: async (ctx, args) => createDesign(designDeps(ctx), ctx.principal, args),
  }),

  defineTool({
    name: 'design_post',
    title: 'Replace a design layout',
    description:
      "Replaces the whole layout (Canvas or video, not a merge) of a post's design and re-renders it. Give the layout_version you read (get_layers or get_post); a stale one is refused: re-read, reapply your change, resubmit. A shared design changes for every unpublished post that shows it; only_this_post: true gives this post its own copy first. Use this tool when you need to: redo a design wholesale. For small changes prefer edit_layers.",
    input: z
      .object({
        post_id: PostId.optional().describe('The post whose design to replace.'),
        design_id: DesignId.optional().describe('Or a design id (e.g. from create_design).'),
        layout: DesignLayout,
        layout_version: z.number().int().min(1).describe('The layout_version you read.'),
        only_this_post: z.boolean().default(false),
      })
      .strict()
      .refine(...oneTarget),
    output: DesignState.extend(TRUNCATION),
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: false },
    run: async (ctx, { post_id, design_id, ...edit }) =>
      editDesign(designDeps(ctx), ctx.principal, { post_id, design_id }, edit, []),
  }),

  defineTool({
    name: 'edit_layers',
    title: 'Edit layers',
    description:
      'Applies up to 40 ops in order to a design, all or nothing: set (fields of a layer, e.g. text, x, color, asset_id of an owned image or video), add, delete, move. Each op targets an index (with page for carousels), a cid or a video clip_id; untouched layers keep theirs. Give the layout_version you read; a stale one is refused. Use this tool when you need to: change a headline, swap an image or clip, restyle a layer.',
    input: EditLayersInput,
    output: DesignAnswer,
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: false },
    run: async (ctx, args) => editLayers(designDeps(ctx), ctx.principal, args),
  }),

  defineTool({
    name: 'preview_design',
    title: 'Preview a design',
    description:
      "A design's page (a video: a frame at rest per time) as a small JPEG after the JSON, each also at a signed images[].url (past 40 KB, only that). Use this tool when you need to: look at a design after editing it.",
    input: PreviewInput,
    output: z.object({
      design_id: z.string(),
      layout_version: z.number().int(),
      page: z.number().int().nullable(),
      pages: z.number().int().nullable(),
      times: z.array(z.number()).nullable(),
      media_path: z.string().nullable().describe('The full page (needs your credential).'),
      preview_url: z
        .string()
        .nullable()
        .describe('The full page, signed and expiring (no credential needed).'),
      render_warnings: summarisedInOutputs(RenderWarnings, 'As design_post answers them.'),
      images: z
        .array(
          z.object({
            url: z
              .string()
              .nullable()
              .describe('Signed, expiring: a video frame (JPEG); a Canvas page full size.'),
            inline: z.boolean().describe('It follows the JSON in content.'),
          }),
        )
        .describe('The page, or a frame per time.'),
    }),
    scope: 'publish',
    annotations: READS,
    run: async (ctx, { page, times, ...ref }) => {
      const { images, image_urls, ...preview } = await previewDesign(
        {
          ...designDeps(ctx),
          notifications: ctx.renders.notifications,
          storage: ctx.media.storage,
          urlKey: ctx.media.urlKey,
        },
        ctx.principal,
        ref,
        { page, times },
      );
      const shown = image_urls.map((url) => ({ url, inline: false }));
      const answer = { ...preview, images: shown };
      // Each image that still fits the answer follows it; every one has its signed link.
      for (const [i, image] of images.entries())
        shown[i]!.inline = ctx.attachImage(image, 'image/jpeg', answer);
      return answer;
    },
  }),
];
