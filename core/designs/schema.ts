// The designs concept's types: zod schemas of design inputs and outputs (each the one
// definition REST validation, the 422 body, the MCP inputSchema and the OpenAPI document are
// built from), and the two layout kinds a design holds, handed on from layout.ts (Canvas) and
// videoLayout.ts (a video's timeline).
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import type { Plan } from '../kernel/plans.ts';
import type { Principal } from '../kernel/principal.ts';
import { Layout } from './layout.ts';
import { VideoLayout } from './videoLayout.ts';

export const LayoutVersion = z
  .number()
  .int()
  .min(1)
  .describe('The layout_version you read; a stale one is refused with 409 version_conflict.');
export const OnlyThisPost = z
  .boolean()
  .default(false)
  .describe(
    'true: when the design is shared, this post first gets its own copy and only it changes.',
  );

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

/** Who calls a design operation: a post caller plus the plan (premium templates). */
export type DesignCaller = Pick<Principal, 'accountId' | 'selectedBrandId' | 'credential' | 'plan'>;

/** A design as stored: its layout, the version it is at, and how its last render went. */
export type DesignRow = {
  id: string;
  account_id: string;
  brand_id: string;
  template: string;
  layout: Layout;
  layout_version: number;
  rendered_version: number | null;
  render_error: string | null;
  /** What the render of rendered_version could not show (text that did not fit). */
  render_warnings: RenderWarning[];
};

/** The account a design is made for, and its plan, whose design limit applies. */
export type DesignMaker = { accountId: string; plan: Plan };

/**
 * What a new design row is made from: a layout; a copy of one of the account's designs, not
 * rendered yet (a post's own copy of a shared design); or a frozen copy, as rendered, that
 * keeps published posts' pages while the original is edited. The frozen copy is the one
 * exemption from the design limit: it counts among the designs kept but is never refused, as
 * refusing it would refuse the edit of a design the account already has.
 */
export type DesignSource =
  | { from: 'layout'; brandId: string; template: string; layout: Layout }
  | { from: 'copy'; designId: string }
  | { from: 'frozen copy'; designId: string };

/** A whole layout: a Canvas layout, or a video timeline (`canvas.type: "video"`). */
export const DesignLayout = z
  .union([Layout, VideoLayout])
  .describe(
    'The whole new layout (a replacement, never a merge): a Canvas layout, or for a video design a video layout (canvas.type "video").',
  );

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

/** A design as the dashboard's gallery shows it. */
export const DesignCard = z.object({
  design_id: z.string(),
  template: z.string(),
  kind: z.enum(['image', 'video']),
  layout_version: z.number().int(),
  rendered: z.boolean().describe('Its pages show the current layout.'),
  thumbnail_url: z.string().nullable().describe('The first rendered page, signed for an hour.'),
  render_error: z.string().nullable(),
  updated_at: z.string(),
});
export type DesignCard = z.infer<typeof DesignCard>;

export const ListDesignsQuery = z
  .object({
    brand_id: IdInput.optional().describe('Omitted: the selected brand.'),
    offset: z.coerce.number().int().min(0).max(100_000).default(0),
  })
  .strict();
export type ListDesignsQuery = z.infer<typeof ListDesignsQuery>;

/** One design as the dashboard's editor opens it. */
export const DesignDetail = DesignCard.omit({ thumbnail_url: true, updated_at: true }).extend({
  layers: LayersView,
  page_urls: z.array(z.string()).describe('The rendered pages, signed for an hour, in order.'),
  texts: z
    .array(z.object({ page: z.number().int(), cid: z.string(), text: z.string() }))
    .describe('Each text layer whole (get_layers cuts its summary), for the text editor.'),
  render_warnings: RenderWarnings,
});
export type DesignDetail = z.infer<typeof DesignDetail>;

export {
  ASPECT_NAMES,
  ASPECTS,
  type Aspect,
  Canvas,
  DoodleLayer,
  DrawingLayer,
  ImageLayer,
  Layer,
  type LayerInput,
  Layout,
  type LayoutInput,
  MAX_LAYERS_PER_PAGE,
  MAX_PAGES,
  MAX_TEXT_PER_LAYER,
  MAX_TEXT_PER_LAYOUT,
  Page,
  ShapeLayer,
  TextLayer,
} from './layout.ts';
export {
  AudioTrack,
  MAX_CLIPS_AT_ONCE,
  MAX_VIDEO_LAYERS,
  MAX_VIDEO_SECONDS,
  VIDEO_ASPECTS,
  VIDEO_FPS,
  type VideoAspect,
  VideoCanvas,
  VideoClipLayer,
  VideoLayer,
  VideoLayout,
  type VideoLayoutInput,
} from './videoLayout.ts';
