// Zod schemas of design inputs and outputs: each is the one definition REST validation, the
// 422 body, the MCP inputSchema and the OpenAPI document are built from.
import { z } from 'zod';
import { MAX_PREVIEW_TIMES } from '../jobs/tasks.ts';
import { IdInput } from '../kernel/ids.ts';
import { ASPECT_NAMES, Layout, MAX_TEXT_PER_LAYER } from './layout.ts';
import { MAX_VIDEO_SECONDS, VideoLayout } from './videoLayout.ts';

const TemplateName = z.string().min(1).max(64).describe('A template name (list_design_templates).');
const LayoutVersion = z
  .number()
  .int()
  .min(1)
  .describe('The layout_version you read; a stale one is refused with 409 version_conflict.');
const OnlyThisPost = z
  .boolean()
  .default(false)
  .describe(
    'true: when the design is shared, this post first gets its own copy and only it changes.',
  );

/** Content for a template's named slots (list_design_templates lists each template's). */
export const SlotsInput = z
  .record(
    z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'a slot name such as headline, photo or item_1'),
    z.union([
      z.string().max(MAX_TEXT_PER_LAYER),
      z
        .object({
          asset_id: IdInput,
          focus: z
            .object({ x: z.number().min(0).max(1), y: z.number().min(0).max(1) })
            .strict()
            .optional()
            .describe('Point to keep in view, as fractions. Omitted: found.'),
          frame_s: z.number().min(0).max(86_400).optional(),
        })
        .strict(),
      z.null(),
    ]),
  )
  .describe(
    'By slot name (list_design_templates): text, or {asset_id, focus?, frame_s?} for photo and logo; null removes it. Unfilled slots take the post copy (headline, body) or brand logo, or are removed.',
  );
export type SlotsInput = z.infer<typeof SlotsInput>;

/** Something a render shows differently from the layout: text that did not fit its frame. */
export const RenderWarning = z.object({
  code: z.enum(['text_overflow', 'word_broken', 'image_missing']),
  cid: z.string().nullable(),
  page: z.number().int(),
  message: z.string(),
});
export type RenderWarning = z.infer<typeof RenderWarning>;

export const RenderWarnings = z
  .array(RenderWarning)
  .describe('Rendered, but: text that did not fit its frame, a broken word, an image gone.');

/** A whole layout: a Canvas layout, or a video timeline (`canvas.type: "video"`). */
export const DesignLayout = z
  .union([Layout, VideoLayout])
  .describe(
    'The whole new layout (a replacement, never a merge): a Canvas layout, or for a video design a video layout (canvas.type "video").',
  );

/** PATCH /v1/posts/{id}/design. Nothing given re-renders the current layout (a retry). */
export const DesignEditInput = z
  .object({
    template: TemplateName.optional().describe(
      'Re-lay the design from this template (slots filled from the post copy), unless layout has layers.',
    ),
    slots: SlotsInput.optional(),
    layout: DesignLayout.optional(),
    layout_version: LayoutVersion.optional(),
    only_this_post: OnlyThisPost,
  })
  .strict();
export type DesignEditInput = z.infer<typeof DesignEditInput>;

/** A design as the design edit answers it. */
export const DesignState = z.object({
  design_id: z.string(),
  post_id: z.string().nullable().describe('The post edited, when the edit went through one.'),
  template: z.string(),
  layout_version: z.number().int(),
  layout: DesignLayout,
  linked_post_ids: z
    .array(z.string())
    .describe('Unpublished posts that show this design (they all changed).'),
  media_paths: z.array(z.string()).describe('Served addresses of the rendered pages.'),
  render_error: z.string().nullable().describe('Why rendering failed or did not finish in time.'),
  render_warnings: RenderWarnings,
});
export type DesignState = z.infer<typeof DesignState>;

/** The refinement of inputs that name a design directly or through a post. */
export const oneTarget = [
  (r: { post_id?: string; design_id?: string }) =>
    (r.post_id === undefined) !== (r.design_id === undefined),
  { message: 'give exactly one of post_id and design_id' },
] as const;

export const DesignId = IdInput.describe('Design id (from create_design or a post).');
export const PostId = IdInput.describe('Post id.');

/** A design named directly or through a post that shows it: exactly one of the two. */
export const DesignRef = z
  .object({ post_id: PostId.optional(), design_id: DesignId.optional() })
  .strict()
  .refine(...oneTarget);
export type DesignRef = z.infer<typeof DesignRef>;

export const CreateDesignInput = z
  .object({
    brand_uuid: z.uuid().describe("The brand's UUID (a post's brand_uuid, or list_brands' uuid)."),
    canvas: z
      .enum(ASPECT_NAMES)
      .optional()
      .describe("Aspect: square, portrait, story or landscape. Omitted: the template's own."),
    template: TemplateName.optional().describe('Template to start from (default blank).'),
    headline: z
      .string()
      .max(300)
      .optional()
      .describe("Text for the template's headline slot (shorthand for slots.headline)."),
    slots: SlotsInput.optional(),
  })
  .strict();
export type CreateDesignInput = z.infer<typeof CreateDesignInput>;

/** A layer addressed by its current position or by its cid. */
const Target = {
  index: z.number().int().min(0).optional().describe('Current position of the layer (0 = bottom).'),
  cid: z.string().max(64).optional().describe('The layer cid (stable across edits).'),
  clip_id: z.string().max(64).optional().describe("A video layer's clip_id (video designs)."),
  page: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Page of a multi-page layout (0-based); with cid it is found on any page.'),
};

export const LayerOp = z.discriminatedUnion('op', [
  z
    .object({
      op: z.literal('set'),
      ...Target,
      fields: z
        .record(z.string(), z.unknown())
        .describe(
          'Layer fields to change (not kind or cid), e.g. {"text": "New"} or {"asset_id": "12"} for an image.',
        ),
    })
    .strict(),
  z
    .object({
      op: z.literal('add'),
      index: Target.index.describe('Position to insert at. Omitted: on top.'),
      page: Target.page,
      layer: z
        .record(z.string(), z.unknown())
        .describe('A whole layer: kind, frame (x, y, w, h) and the kind fields.'),
    })
    .strict(),
  z.object({ op: z.literal('delete'), ...Target }).strict(),
  z
    .object({
      op: z.literal('move'),
      ...Target,
      to: z.number().int().min(0).describe('New position on the same page (0 = bottom).'),
    })
    .strict(),
]);
export type LayerOp = z.infer<typeof LayerOp>;

export const MAX_LAYER_OPS = 40;

/** A layer edit without its target: the dashboard names the design in the path. */
export const LayerEdit = z
  .object({
    layout_version: LayoutVersion,
    ops: z
      .array(LayerOp)
      .min(1)
      .max(MAX_LAYER_OPS, `at most ${MAX_LAYER_OPS} ops`)
      .describe('Applied in order, all or nothing.'),
    only_this_post: OnlyThisPost,
  })
  .strict();

export const EditLayersInput = LayerEdit.extend({
  post_id: PostId.optional(),
  design_id: DesignId.optional(),
})
  .strict()
  .refine(...oneTarget);
export type EditLayersInput = z.infer<typeof EditLayersInput>;

export const LayerSummary = z.object({
  page: z.number().int(),
  index: z.number().int(),
  cid: z.string(),
  kind: z.string(),
  summary: z.string().describe('Text (cut), image asset, shape, or stroke count.'),
  frame: z.object({
    x: z.number(),
    y: z.number(),
    w: z.number(),
    h: z.number().nullable(),
    rotation: z.number(),
  }),
  clip_id: z.string().optional().describe('Video layers of a video design.'),
  start_s: z.number().optional().describe('Video designs: when the layer shows, in seconds.'),
  end_s: z.number().optional(),
});

export const LayersView = z.object({
  design_id: z.string(),
  layout_version: z.number().int(),
  aspect: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  pages: z.number().int(),
  layers: z.array(LayerSummary),
});
export type LayersView = z.infer<typeof LayersView>;

/** What a preview shows, without its target: the dashboard names the design in the path. */
export const PreviewShow = z
  .object({
    page: z.number().int().min(0).default(0).describe('Page (0-based).'),
    times: z
      .array(z.number().min(0).max(MAX_VIDEO_SECONDS))
      .min(1)
      .max(MAX_PREVIEW_TIMES, `at most ${MAX_PREVIEW_TIMES} times`)
      .optional()
      .describe('Video: seconds, a frame each (default [0]).'),
  })
  .strict();

export const PreviewInput = PreviewShow.extend({
  post_id: PostId.optional(),
  design_id: DesignId.optional(),
})
  .strict()
  .refine(...oneTarget);
