// MCP tools for drawings (SPEC.md "MCP", Draw inspection and authoring, Drawing on a post):
// list_drawings, get_drawing, create_drawing, update_drawing and delete_drawing over
// core/drawings/service.ts; export_drawing, save_drawing_to_library and
// attach_drawing_to_post over core/drawings/exports.ts. create_drawing spells the stroke
// schema out; the others name it.
import { z } from 'zod';
import { designsShowing, withRenderSlot } from '../../../core/designs/service.ts';
import {
  AttachDrawingInput,
  CreateDrawingInput,
  DeleteDrawingInput,
  DeletedDrawing,
  DrawingExport,
  DrawingSummary,
  DrawingView,
  ExportDrawingInput,
  GetDrawingInput,
  ListDrawingsInput,
  SaveDrawingInput,
  SavedDrawing,
  Stroke,
  StrokePage,
  UpdateDrawingInput,
  UpdateStrokes,
} from '../../../core/drawings/schema.ts';
import {
  attachDrawingToPost,
  createDrawing,
  type DrawingFileApiDeps,
  deleteDrawing,
  exportDrawing,
  getDrawing,
  listBrandDrawings,
  readExportFile,
  saveDrawingToLibrary,
  updateDrawing,
} from '../../../core/drawings/service.ts';
import { Post } from '../../../core/posts/schema.ts';
import { summarisedInOutputs, summariseInInputs } from '../jsonSchema.ts';
import { DELETES, defineTool, READS, type ToolContext, TRUNCATION, WRITES } from '../registry.ts';
import { RESULT_LIMIT_BYTES } from '../results.ts';

const fileDeps = (ctx: ToolContext): DrawingFileApiDeps => ({
  pool: ctx.pool,
  notifications: ctx.renders.notifications,
  storage: ctx.media.storage,
  publicBaseUrl: ctx.media.publicBaseUrl,
  urlKey: ctx.media.urlKey,
  renderSlot: (accountId, work) => withRenderSlot(ctx.renders, accountId, work),
});

const Answer = summarisedInOutputs(DrawingView.clone(), 'The drawing, as get_drawing answers it.');

summariseInInputs(
  UpdateStrokes,
  'Strokes as create_drawing takes them: [{sid?, points [[x, y, pressure?]], color, size, opacity, thinning, smoothing, streamline, taper_start, taper_end, tool}].',
);

/** A whole drawing, its strokes named rather than spelt out a second time. */
const WholeDrawing = DrawingView.extend({
  strokes: summarisedInOutputs(
    z.array(Stroke),
    'Strokes as create_drawing takes them, each with its sid.',
  ),
});

export const DRAWING_TOOLS = [
  defineTool({
    name: 'list_drawings',
    title: 'List drawings',
    description:
      "The account's drawings, newest first, with their stroke and point counts (not the strokes). Page by advancing offset by the number of rows returned until a page is empty. Use this tool when you need to: find a drawing to edit, export or place in a design.",
    input: ListDrawingsInput,
    output: z.object({ drawings: z.array(DrawingSummary), ...TRUNCATION }),
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => listBrandDrawings(ctx.pool, ctx.principal, args),
  }),

  defineTool({
    name: 'get_drawing',
    title: 'Get a drawing',
    description:
      'A drawing: size, background, version, and a page of its strokes (sid, points, style, tool) from stroke_offset, about 16 KB; next_stroke_offset (null: none) and next_point_offset start the next page. A stroke too large for a page comes in parts: point_offset > 0 continues the last one. Use this tool when you need to: read a drawing before update_drawing.',
    input: GetDrawingInput,
    output: WholeDrawing.extend({ ...StrokePage, ...TRUNCATION }),
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => getDrawing(ctx.pool, ctx.principal, args.drawing_id, args),
  }),

  defineTool({
    name: 'create_drawing',
    title: 'Create a drawing',
    description:
      'A freehand drawing for a brand: size (at most 4096 px a side), background, and strokes of points [x, y, pressure?] shaped by perfect-freehand; pen, highlighter (multiplies) or eraser (cuts earlier strokes). At most 2,000 strokes, 5,000 points a stroke, 200,000 a drawing. Place it in a design with a layer {kind: "drawing", drawing_id}. Use this tool when you need to: sketch an annotation, arrow, signature or doodle to reuse.',
    input: CreateDrawingInput,
    output: Answer,
    scope: 'media',
    annotations: { ...WRITES, idempotentHint: false },
    run: async (ctx, args) => createDrawing(ctx.pool, ctx.principal, args),
  }),

  defineTool({
    name: 'update_drawing',
    title: 'Update a drawing',
    description:
      'Changes a drawing as one new version: title, background, and either strokes (a whole replacement) or add_strokes and remove_strokes (by sid); strokes as create_drawing takes them. Give the expected_version you read; a stale one is refused with the current one and nothing changes. Designs show the change when they render again. Use this tool when you need to: add to or correct a drawing.',
    input: UpdateDrawingInput,
    output: Answer,
    scope: 'media',
    annotations: { ...WRITES, idempotentHint: false },
    run: async (ctx, args) => updateDrawing(ctx.pool, ctx.principal, args),
  }),

  defineTool({
    name: 'delete_drawing',
    title: 'Delete a drawing',
    description:
      'Deletes a drawing; refused (drawing_in_use, naming them) while designs show it, unless force: true. Use this tool when you need to: remove a drawing nobody uses.',
    input: DeleteDrawingInput,
    output: DeletedDrawing,
    scope: 'media',
    annotations: DELETES,
    run: async (ctx, args) => deleteDrawing(ctx.pool, ctx.principal, args, designsShowing),
  }),

  defineTool({
    name: 'export_drawing',
    title: 'Export a drawing',
    description:
      "The drawing's current version as a PNG (an image after this answer) or SVG (text after it), scaled 0.25-4, optionally without background, with an address until the file is deleted (an hour on, or after 8 newer exports). Use this tool when you need to: look at a drawing or hand its file on.",
    input: ExportDrawingInput,
    output: DrawingExport.extend({
      inline: z
        .enum(['file', 'preview', 'none'])
        .describe(
          'What follows: the file, a PNG preview (over 4 MB) or nothing (past 40 KB: signed_url).',
        ),
    }),
    scope: 'media',
    annotations: { ...WRITES, idempotentHint: true },
    run: async (ctx, args) => {
      const { preview, ...exported } = await exportDrawing(fileDeps(ctx), ctx.principal, args);
      // Asked with the longest `inline`: the answer only gets shorter once it is known.
      const answer = { ...exported, inline: 'preview' as 'file' | 'preview' | 'none' };
      const read = (file: 'drawing' | 'preview') =>
        readExportFile(fileDeps(ctx), ctx.principal, exported, file);
      // A file larger than the whole answer may hold is not read to find that out.
      if (exported.bytes <= RESULT_LIMIT_BYTES) {
        const file = await read('drawing');
        const attached =
          exported.format === 'svg'
            ? ctx.attachText(file.toString('utf8'), answer)
            : ctx.attachImage(file, 'image/png', answer);
        if (attached) return { ...answer, inline: 'file' as const };
      }
      if (preview && ctx.attachImage(await read('preview'), 'image/png', answer))
        return { ...answer, inline: 'preview' as const };
      return { ...answer, inline: 'none' as const };
    },
  }),

  defineTool({
    name: 'save_drawing_to_library',
    title: 'Save a drawing to the library',
    description:
      "The drawing's current version as a PNG image asset of its brand, titled as alt text, counted against storage; the same version again answers the same asset. Use this tool when you need to: reuse a drawing as an ordinary image.",
    input: SaveDrawingInput,
    output: SavedDrawing,
    scope: 'media',
    annotations: { ...WRITES, idempotentHint: true },
    run: async (ctx, args) => saveDrawingToLibrary(fileDeps(ctx), ctx.principal, args),
  }),

  defineTool({
    name: 'attach_drawing_to_post',
    title: 'Attach a drawing to a post',
    description:
      "Saves the drawing as save_drawing_to_library does and adds it to an unpublished post's media (the post returns to draft, as after any edit); refused when the platform takes no more images. Use this tool when you need to: put a sketch on a post.",
    input: AttachDrawingInput,
    output: z.object({
      image: summarisedInOutputs(
        SavedDrawing.clone(),
        'The image, as save_drawing_to_library answers it.',
      ),
      post: summarisedInOutputs(Post, 'The post, as get_post answers it (less layout).'),
    }),
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: true },
    run: async (ctx, args) => attachDrawingToPost(fileDeps(ctx), ctx.principal, args),
  }),
];
