// The templates concept's types: zod schemas of the inputs that lay a template out (a template's
// slots, create_design, the design edit, POST /v1/posts with a layout or template) and of the
// template catalogue's listing. No Node here: the dashboard imports these types.
import { z } from 'zod';
import {
  ASPECT_NAMES,
  DesignLayout,
  Layout,
  LayoutVersion,
  MAX_TEXT_PER_LAYER,
  OnlyThisPost,
  RenderWarnings,
} from '../designs/schema.ts';
import { IdInput } from '../kernel/ids.ts';
import { CreatePostInput, PostReceipt, PostWarnings } from '../posts/schema.ts';

export const TemplateName = z
  .string()
  .min(1)
  .max(64)
  .describe('A template name (list_design_templates).');

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

export const NativePostInput = CreatePostInput.extend({
  layout: Layout.optional().describe(
    'A native Canvas layout: the post becomes an image draft. Without layers or pages, the template fills it.',
  ),
  template: z.string().max(64).optional().describe('Template to start from (default blank).'),
  slots: SlotsInput.optional(),
  design_id: IdInput.optional().describe(
    'Link the post to an existing design of the brand (excludes layout, template, asset_ids).',
  ),
});
export type NativePostInput = z.infer<typeof NativePostInput>;

export const NativePostReceipt = PostReceipt.extend({
  design_id: z.string(),
  layout_version: z.number(),
  media_paths: z.array(z.string()).describe('Served addresses of the rendered pages.'),
  render_error: z.string().nullable().describe('Why rendering failed or did not finish in time.'),
  render_warnings: RenderWarnings,
});
export type NativePostReceipt = z.infer<typeof NativePostReceipt>;

/**
 * What POST /v1/posts answers either way: the receipt, with the design's members when the
 * post was made from a layout, a template or a design. One object schema rather than a union
 * of the two: the response is then written without trying each shape in turn.
 */
export const CreatedPostReceipt = PostReceipt.extend({
  design_id: NativePostReceipt.shape.design_id.optional(),
  layout_version: NativePostReceipt.shape.layout_version.optional(),
  media_paths: NativePostReceipt.shape.media_paths.optional(),
  render_error: NativePostReceipt.shape.render_error.optional(),
  render_warnings: NativePostReceipt.shape.render_warnings.optional(),
  warnings: PostWarnings.optional(),
});

export const TemplateSummary = z.object({
  name: z.string(),
  title: z.string(),
  niche: z.string(),
  aspect: z.enum(ASPECT_NAMES).describe('Its own aspect (any aspect can use it).'),
  premium: z.boolean().describe('Premium templates need the pro plan or higher.'),
  slots: z
    .array(
      z.object({
        name: z.string(),
        kind: z.enum(['text', 'image']).describe('text: a string; image: {asset_id, focus?}.'),
        fallback: z
          .enum(['post_copy', 'brand_logo'])
          .nullable()
          .describe(
            'Filled when not given: headline and body from the post copy, logo from the brand kit; else removed.',
          ),
      }),
    )
    .describe('Named slots; a slot left unfilled is removed with its decoration.'),
  thumbnail_url: z.string(),
});
export type TemplateSummary = z.infer<typeof TemplateSummary>;

/** A template as the dashboard's gallery offers it: with whether the caller's plan can use it. */
export const TemplateChoice = TemplateSummary.extend({
  allowed: z.boolean().describe('The caller’s plan can use it (premium templates need pro).'),
});
export type TemplateChoice = z.infer<typeof TemplateChoice>;
