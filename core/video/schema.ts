// The video concept's types: zod schemas of preview_design's input, use_video_template's input
// and answer, and the video template listing. No Node here: the dashboard imports these types.
import { z } from 'zod';
import { DesignId, MAX_VIDEO_SECONDS, oneTarget, PostId } from '../designs/schema.ts';
import { MAX_PREVIEW_TIMES } from '../jobs/schema.ts';
import { IdInput } from '../kernel/ids.ts';
import { PLATFORMS } from '../kernel/platformNames.ts';

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

/** What a poster frames job answers: one JPEG a time asked for. */
export type PosterFrames = { frames: { time_s: number; jpeg_base64: string }[] };

export const UseVideoTemplateInput = z
  .object({
    template: z.string().min(1).max(64),
    platform: z.enum(PLATFORMS),
    brand_id: IdInput.optional(),
    texts: z
      .record(z.string().max(32), z.string().max(500))
      .default({})
      .describe('Text by slot name.'),
    media: z
      .record(z.string().max(32), IdInput)
      .default({})
      .describe('Asset id by media slot (clip: video, photo: image).'),
    audio_asset_id: IdInput.optional(),
    body: z.string().max(5_000).optional().describe('Post copy; omitted: the first text.'),
  })
  .strict();
export type UseVideoTemplateInput = z.output<typeof UseVideoTemplateInput>;

export const UsedVideoTemplate = z.object({
  design_id: z.string(),
  post_id: z.string(),
  layout_version: z.number().int(),
  kind: z.string(),
  removed_slots: z.array(z.string()),
});
export type UsedVideoTemplate = z.infer<typeof UsedVideoTemplate>;

export const VideoTemplateSummary = z.object({
  name: z.string(),
  title: z.string(),
  aspect: z.string(),
  duration_s: z.number(),
  premium: z.boolean(),
  text_slots: z.array(z.string()),
  media_slots: z.array(z.string()),
  description: z.string(),
});
export type VideoTemplateSummary = z.infer<typeof VideoTemplateSummary>;

/** A video template as the dashboard's gallery offers it: with whether the caller can use it. */
export const VideoTemplateChoice = VideoTemplateSummary.extend({
  allowed: z
    .boolean()
    .describe('The caller can use it (premium ones need the video_templates feature).'),
});
export type VideoTemplateChoice = z.infer<typeof VideoTemplateChoice>;

/** list_video_templates' filters and page. */
export const ListVideoTemplatesQuery = z
  .object({
    query: z.string().max(100).optional(),
    shape: z.enum(['story', 'square', 'portrait', 'landscape']).optional(),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(50).default(20),
  })
  .strict();
export type ListVideoTemplatesQuery = z.infer<typeof ListVideoTemplatesQuery>;
