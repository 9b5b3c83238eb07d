// The native Canvas layout (SPEC.md "Design layout"): plain data, one zod schema. A canvas
// of a fixed aspect, then one page of ordered layers or up to 20 pages of them (a carousel).
// Every limit is a refusal that names it, never a truncation; unknown keys are refused.
// The renderer owns the layer types it draws (render/layout.ts); these schemas are the API's
// validation of them, and the compiler checks below that they produce exactly those types.
import { z } from 'zod';
import type { Layer as DrawnLayer } from '../../render/layout.ts';
import { IdInput, newPartId } from '../kernel/ids.ts';
import { HexColour, PartId } from '../validation.ts';

/** Canvas sizes in pixels by aspect. */
export const ASPECTS = {
  square: { width: 1080, height: 1080 },
  portrait: { width: 1080, height: 1350 },
  story: { width: 1080, height: 1920 },
  landscape: { width: 1200, height: 675 },
} as const;
export type Aspect = keyof typeof ASPECTS;
export const ASPECT_NAMES = Object.keys(ASPECTS) as [Aspect, ...Aspect[]];

export const MAX_LAYERS_PER_PAGE = 160;
export const MAX_PAGES = 20;
/**
 * Characters of one text layer: an Instagram caption (2,200) or a LinkedIn post (3,000)
 * still fills a template's body slot. Layout text is cut by its frame, so more is never seen.
 */
export const MAX_TEXT_PER_LAYER = 5_000;
/**
 * Characters of text in a whole layout, every page together (checked in
 * core/designs/service.ts checkedLayout): the text of a page is measured and wrapped
 * line by line, so this bounds a render's work. Four full text layers, or a 20-page carousel
 * of 1,000 characters a page.
 */
export const MAX_TEXT_PER_LAYOUT = 20_000;

const Hex = HexColour;
/** Canvas pixels; generous bounds so a layer may sit partly off the canvas. */
const Px = z.number().finite().min(-10_000).max(10_000);
const Size = z.number().finite().min(0).max(10_000);

const Cid = PartId.describe('Stable layer id; assigned when missing, kept by every edit.');

const frame = {
  cid: Cid.optional(),
  x: Px.describe('Left edge of the frame, canvas pixels.'),
  y: Px.describe('Top edge of the frame, canvas pixels.'),
  w: Size.describe('Frame width; text wraps to it.'),
  rotation: z
    .number()
    .finite()
    .min(-360)
    .max(360)
    .default(0)
    .describe('Degrees, clockwise, around the frame centre.'),
  opacity: z.number().min(0).max(1).default(1),
  /** The template slot the layer fills or decorates (a re-lay carries its content over). */
  slot: z.string().max(32).optional(),
};

export const TextLayer = z
  .object({
    kind: z.literal('text'),
    ...frame,
    h: Size.optional().describe('Frame height; holds whole lines. Omitted: no limit.'),
    text: z
      .string()
      .max(
        MAX_TEXT_PER_LAYER,
        `at most ${MAX_TEXT_PER_LAYER.toLocaleString('en-US')} characters a text layer`,
      ),
    size: z.number().min(4).max(400).default(48).describe('Font size in pixels.'),
    font: z
      .string()
      .min(1)
      .max(64)
      .default('Inter')
      .describe('A font family (list_design_templates lists them).'),
    weight: z.enum(['normal', 'bold']).default('normal'),
    color: Hex.default('#111111'),
    align: z.enum(['left', 'center', 'right']).default('left'),
    line_height: z.number().min(0.8).max(3).default(1.2).describe('Line spacing, times the size.'),
    fit: z
      .enum(['shrink', 'clip', 'ellipsis'])
      .default('clip')
      .describe('Text taller than h: shrink to min_size, clip, or end in "…" (ellipsis).'),
    min_size: z.number().min(4).max(400).optional(),
    valign: z.enum(['top', 'middle', 'bottom']).default('top'),
    caps: z.boolean().optional().describe('Shown in capitals.'),
  })
  .strict();

export const ImageLayer = z
  .object({
    kind: z.literal('image'),
    ...frame,
    h: Size,
    asset_id: IdInput.describe('An owned image asset.'),
    fit: z.enum(['cover', 'contain']).default('cover'),
    crop: z
      .object({
        x: z.number().min(0).max(1),
        y: z.number().min(0).max(1),
        w: z.number().gt(0).max(1),
        h: z.number().gt(0).max(1),
      })
      .strict()
      .optional()
      .describe('Part of the source to use, as fractions of its width and height.'),
    focus: z
      .union([
        z.literal('auto'),
        z.object({ x: z.number().min(0).max(1), y: z.number().min(0).max(1) }).strict(),
      ])
      .optional()
      .describe('cover: the point kept in view (fractions); "auto" finds it.'),
    frame_s: z
      .number()
      .min(0)
      .max(86_400)
      .optional()
      .describe('asset_id is a video: its frame at this second.'),
  })
  .strict();

export const ShapeLayer = z
  .object({
    kind: z.literal('shape'),
    ...frame,
    h: Size,
    shape: z.enum(['rect', 'ellipse', 'line']),
    fill: Hex.nullable().default(null),
    stroke: Hex.nullable().default(null),
    stroke_width: z.number().min(0).max(200).default(0),
    radius: z.number().min(0).max(5_000).default(0).describe('Corner radius of a rect.'),
  })
  .strict();

// One tuple with an optional pressure, not a union of two tuples: a union tries both shapes
// for each of a layout's up to 400,000 points (150 ms of the API's event loop for 40,000
// points with pressure, 8 ms this way), and its errors only say "Invalid input".
const Point = z.tuple([Px, Px, z.number().min(0).max(1).optional()]);

export const DoodleLayer = z
  .object({
    kind: z.literal('doodle'),
    ...frame,
    h: Size.optional(),
    strokes: z
      .array(
        z
          .object({
            points: z
              .array(Point)
              .min(1)
              .max(2_000)
              .describe('[x, y] or [x, y, pressure], relative to the frame.'),
            width: z.number().min(0.5).max(200).default(8),
            color: Hex.default('#111111'),
          })
          .strict(),
      )
      .max(200),
  })
  .strict();

export const DrawingLayer = z
  .object({ kind: z.literal('drawing'), ...frame, h: Size, drawing_id: IdInput })
  .strict();

export const Layer = z.discriminatedUnion('kind', [
  TextLayer,
  ImageLayer,
  ShapeLayer,
  DoodleLayer,
  DrawingLayer,
]);
export type Layer = z.infer<typeof Layer>;
export type LayerInput = z.input<typeof Layer>;

/** Whether A and B are the same type, not merely assignable one way or the other. */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Each member of a union as one object type (zod's output and `&` spell the same type apart). */
type Flat<T> = T extends unknown ? { [K in keyof T]: T[K] } : never;
// A field added, dropped or changed here and not in render/layout.ts (or there and not here)
// fails the typecheck: a layout the API accepts is always one the renderer knows how to read.
true satisfies Same<Flat<Layer>, Flat<DrawnLayer>>;

const Layers = z
  .array(Layer)
  .max(MAX_LAYERS_PER_PAGE, `at most ${MAX_LAYERS_PER_PAGE} layers a page`);

export const Page = z.object({ bg: Hex.optional(), layers: Layers }).strict();
export type Page = z.infer<typeof Page>;

export const Canvas = z
  .object({
    aspect: z
      .enum(ASPECT_NAMES)
      .default('square')
      .describe('square 1080×1080, portrait 1080×1350, story 1080×1920, landscape 1200×675.'),
    bg: Hex.default('#ffffff'),
  })
  .strict();

export const Layout = z
  .object({
    canvas: Canvas.default({ aspect: 'square', bg: '#ffffff' }),
    layers: Layers.optional().describe('One page of layers.'),
    pages: z
      .array(Page)
      .min(1)
      .max(MAX_PAGES, `at most ${MAX_PAGES} pages`)
      .optional()
      .describe('Several pages (a carousel), each with its own layers.'),
  })
  .strict()
  .refine((l) => l.layers === undefined || l.pages === undefined, {
    message: 'give either layers (one page) or pages, not both',
  })
  .describe('A native Canvas layout.');
export type Layout = z.infer<typeof Layout>;
export type LayoutInput = z.input<typeof Layout>;

/** The pages of a layout, whichever form it was given in. */
export const pagesOf = (layout: Layout): Page[] =>
  layout.pages ?? [{ layers: layout.layers ?? [] }];

/**
 * Gives every layer without a `cid` a new one, and answers the cids used twice (an error
 * for the caller to report). Layers that have one keep it.
 */
export function assignCids(layout: Layout): { layout: Layout; duplicates: string[] } {
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const fill = (layers: Layer[]) =>
    layers.map((layer) => {
      const cid = layer.cid ?? newPartId('c');
      if (seen.has(cid)) duplicates.push(cid);
      seen.add(cid);
      return { ...layer, cid };
    });
  return {
    layout: layout.pages
      ? { ...layout, pages: layout.pages.map((p) => ({ ...p, layers: fill(p.layers) })) }
      : { ...layout, layers: fill(layout.layers ?? []) },
    duplicates,
  };
}
