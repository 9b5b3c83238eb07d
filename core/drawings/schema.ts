// Drawings (SPEC.md's drawing tools): a brand's freehand sketch, its strokes shaped by
// perfect-freehand and drawn by render/drawing.ts (./service.ts checks that the two agree: no
// Node here, as the dashboard imports these types). One zod schema per input; every bound is
// a refusal that names it, never a truncation; unknown keys are refused.

import { z } from 'zod';
import {
  DRAWING_FORMATS,
  type DrawingFormat,
  MAX_SCALE,
  MIN_SCALE,
} from '../../render/drawingSize.ts';
import { IdInput } from '../kernel/ids.ts';
import { grouped, HexColour, PartId } from '../validation.ts';

export const MAX_DRAWING_SIDE = 4096;
export const MAX_STROKES = 2_000;
export const MAX_STROKE_POINTS = 5_000;
export const MAX_DRAWING_POINTS = 200_000;

const Hex = HexColour;
const Coordinate = z
  .number()
  .finite()
  .min(-MAX_DRAWING_SIDE)
  .max(2 * MAX_DRAWING_SIDE);

export const Sid = PartId.describe(
  'Stable stroke id; assigned when missing, kept by every update.',
);

export const Stroke = z
  .object({
    sid: Sid.optional(),
    points: z
      .array(z.tuple([Coordinate, Coordinate, z.number().min(0).max(1).optional()]))
      .min(1)
      .max(MAX_STROKE_POINTS, `at most ${grouped(MAX_STROKE_POINTS)} points a stroke`)
      .describe('[x, y] or [x, y, pressure 0-1], in drawing pixels.'),
    color: Hex.default('#111111'),
    size: z.number().min(0.5).max(512).default(8).describe('Diameter at full pressure.'),
    opacity: z.number().min(0).max(1).default(1),
    thinning: z.number().min(-1).max(1).default(0.5).describe('How much pressure thins it.'),
    smoothing: z.number().min(0).max(1).default(0.5),
    streamline: z.number().min(0).max(1).default(0.5),
    taper_start: z.number().min(0).max(10_000).default(0).describe('Pixels; 0: none.'),
    taper_end: z.number().min(0).max(10_000).default(0),
    tool: z
      .enum(['pen', 'highlighter', 'eraser'])
      .default('pen')
      .describe('highlighter multiplies with what is under it; eraser cuts earlier strokes.'),
  })
  .strict();
export type Stroke = z.infer<typeof Stroke>;

/**
 * The first stroke that takes a drawing past MAX_DRAWING_POINTS, and how many points the
 * drawing holds with it; undefined when it stays within. Shared by the schema (one request's
 * strokes) and update_drawing (the strokes kept plus those added).
 */
export function pointsPastLimit(strokes: readonly { points: readonly unknown[] }[]) {
  let points = 0;
  for (const [index, s] of strokes.entries()) {
    points += s.points.length;
    if (points > MAX_DRAWING_POINTS) return { index, points };
  }
  return undefined;
}

export const pointsMessage = (points: number) =>
  `at most ${grouped(MAX_DRAWING_POINTS)} points a drawing; with this stroke it holds ${grouped(points)}`;

const Strokes = z
  .array(Stroke)
  .max(MAX_STROKES, `at most ${grouped(MAX_STROKES)} strokes a drawing`)
  .superRefine((strokes, ctx) => {
    const past = pointsPastLimit(strokes);
    if (past)
      ctx.addIssue({
        code: 'custom',
        path: [past.index, 'points'],
        message: pointsMessage(past.points),
      });
  });

/** A drawing's background; update_drawing keeps the current one when it is not given. */
const Background = z
  .union([z.literal('transparent'), Hex])
  .describe('A hex colour, or "transparent".');

const Side = z
  .number()
  .int('use whole pixels')
  .min(1, 'at least 1 pixel')
  .max(MAX_DRAWING_SIDE, `at most ${MAX_DRAWING_SIDE} pixels`);
const Title = z
  .string()
  .trim()
  .min(1, 'give the drawing a title')
  .max(200, 'at most 200 characters');

export const CreateDrawingInput = z
  .object({
    brand_id: IdInput.optional().describe('Omitted: the selected brand.'),
    title: Title,
    width: Side.describe(`Pixels, at most ${MAX_DRAWING_SIDE}.`),
    height: Side,
    background: Background.default('transparent'),
    strokes: Strokes.default([]),
  })
  .strict();
export type CreateDrawingInput = z.infer<typeof CreateDrawingInput>;

/** The strokes update_drawing takes: the same rules, a schema of their own (named, not spelt out, by the tool). */
export const UpdateStrokes = Strokes.clone();

/** A drawing's changes without its id: the dashboard names the drawing in the path. */
const DrawingChangeFields = z
  .object({
    expected_version: z
      .number()
      .int()
      .min(1)
      .describe('The version you read; a stale one is refused with the current one.'),
    title: Title.optional(),
    background: Background.optional(),
    strokes: UpdateStrokes.optional().describe('A whole replacement of the strokes.'),
    add_strokes: UpdateStrokes.optional().describe('Strokes drawn on top (new sids unique).'),
    remove_strokes: z.array(Sid).max(MAX_STROKES).optional().describe('Strokes removed by sid.'),
  })
  .strict();
const oneWayOfChanging = [
  (u: { strokes?: unknown; add_strokes?: unknown; remove_strokes?: unknown }) =>
    u.strokes === undefined || (!u.add_strokes && !u.remove_strokes),
  { message: 'give strokes (a replacement) or add_strokes/remove_strokes, not both' },
] as const;

export const DrawingChanges = DrawingChangeFields.refine(...oneWayOfChanging);

export const UpdateDrawingInput = DrawingChangeFields.extend({ drawing_id: IdInput })
  .strict()
  .refine(...oneWayOfChanging);
export type UpdateDrawingInput = z.infer<typeof UpdateDrawingInput>;

/** A drawing as answered. */
export const DrawingView = z.object({
  id: z.string(),
  brand_id: z.string(),
  title: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  background: z.string(),
  strokes: z.array(Stroke),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DrawingView = z.infer<typeof DrawingView>;

export const DrawingRef = z.object({ drawing_id: IdInput.describe('A drawing id.') }).strict();

/**
 * What get_drawing answers at a time, in bytes of JSON (./pages.ts): a drawing of 2,000 long
 * strokes is megabytes, a whole MCP result at most 40 KB, and it carries its JSON twice (the
 * text, whose quotes escape to two bytes each, and structuredContent): 16,000 bytes leave the
 * escapes of the most quoted page (a page of short strokes, or a title of quotes) room.
 */
export const DRAWING_PAGE_BYTES = 16_000;

export const GetDrawingInput = DrawingRef.extend({
  stroke_offset: z
    .number()
    .int()
    .min(0)
    .max(MAX_STROKES)
    .default(0)
    .describe('Strokes to skip (next_stroke_offset of the page before).'),
  point_offset: z
    .number()
    .int()
    .min(0)
    .max(MAX_STROKE_POINTS - 1)
    .default(0)
    .describe('next_point_offset of the page before, if any.'),
}).strict();
export type GetDrawingInput = z.infer<typeof GetDrawingInput>;

export const ListDrawingsInput = z
  .object({
    brand_id: IdInput.optional().describe('Only this brand (list_brands). Omitted: all brands.'),
    offset: z.number().int().min(0).default(0).describe('Rows to skip (advance by rows returned).'),
    limit: z.number().int().min(1).max(50).default(20),
  })
  .strict();
export type ListDrawingsInput = z.infer<typeof ListDrawingsInput>;

/** A drawing in a listing: everything but its strokes, which it counts. */
export const DrawingSummary = DrawingView.omit({ strokes: true }).extend({
  stroke_count: z.number().int(),
  point_count: z.number().int(),
});
export type DrawingSummary = z.infer<typeof DrawingSummary>;

/** What deleting a drawing answers. */
export const DeletedDrawing = z.object({
  drawing_id: z.string(),
  deleted: z.literal(true),
  designs: z.array(z.string()),
});

/**
 * Where a page of strokes stands in the whole drawing (./pages.ts). point_offset above 0: the
 * first stroke's points continue the last stroke of the page before (same sid); a
 * next_point_offset: the last stroke holds only its first points, and the next page, asked
 * with it as point_offset, goes on.
 */
export const StrokePage = {
  stroke_count: z.number().int(),
  point_offset: z.number().int(),
  next_stroke_offset: z.number().int().nullable(),
  next_point_offset: z.number().int().nullable(),
};

/** A drawing with one page of its strokes, as get_drawing and the dashboard read it. */
export const DrawingPage = DrawingView.extend(StrokePage);
export type DrawingPage = z.infer<typeof DrawingPage>;

export const DeleteDrawingInput = z
  .object({
    drawing_id: IdInput,
    force: z
      .boolean()
      .default(false)
      .describe('Delete even while designs show it (their layers then render without it).'),
  })
  .strict();
export type DeleteDrawingInput = z.infer<typeof DeleteDrawingInput>;

// The formats and scales are the renderer's (render/drawingSize.ts), which the job catalogue
// checks a render's payload against too.
export { DRAWING_FORMATS, type DrawingFormat, MAX_SCALE, MIN_SCALE };

const Scale = z
  .number()
  .min(MIN_SCALE)
  .max(MAX_SCALE)
  .default(1)
  .describe('Pixels per drawing pixel (a PNG holds at most 4096 × 4096).');

export const ExportDrawingInput = z
  .object({
    drawing_id: IdInput.describe('A drawing id.'),
    format: z.enum(DRAWING_FORMATS).default('png').describe('png (pixels) or svg (vector).'),
    scale: Scale,
    transparent: z.boolean().default(false).describe('Leave the background out.'),
  })
  .strict();
export type ExportDrawingInput = z.infer<typeof ExportDrawingInput>;

export const SaveDrawingInput = z
  .object({ drawing_id: IdInput.describe('A drawing id.'), scale: Scale })
  .strict();
export type SaveDrawingInput = z.infer<typeof SaveDrawingInput>;

export const AttachDrawingInput = z
  .object({
    drawing_id: IdInput.describe('A drawing id.'),
    post_id: IdInput.describe('An unpublished post.'),
  })
  .strict();
export type AttachDrawingInput = z.infer<typeof AttachDrawingInput>;

/** An exported drawing, as export_drawing answers it (the file itself beside it). */
export const DrawingExport = z.object({
  job_id: z.string(),
  drawing_id: z.string(),
  version: z.number().int().describe('The version drawn.'),
  format: z.enum(DRAWING_FORMATS),
  mime: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  bytes: z.number().int(),
  signed_url: z.string().nullable().describe('The file, no credential needed, until expires_at.'),
  expires_at: z.string().nullable().describe('When the file is deleted.'),
});
export type DrawingExport = z.infer<typeof DrawingExport>;

/** A drawing saved as a library image. */
export const SavedDrawing = z.object({
  drawing_id: z.string(),
  version: z.number().int().describe('The version drawn.'),
  asset_id: z.string(),
  alt_text: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  bytes: z.number().int(),
  media_path: z.string().describe('The image (needs your credential).'),
  signed_url: z
    .string()
    .nullable()
    .describe('The image, signed and expiring (no credential needed).'),
  reused: z
    .boolean()
    .describe('True when this version at this scale was saved before: that asset is answered.'),
});
export type SavedDrawing = z.infer<typeof SavedDrawing>;
