// A video design (issue 16): one continuous timeline on a canvas of `type: "video"`. Every
// Canvas layer kind can appear, each shown from `start_s` to `end_s` with an optional enter
// and exit motion, plus `video` layers (an owned clip that fills the frame) and one optional
// audio track. Plain data, one zod schema; limits are refused, never truncated; unknown keys
// are refused.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import { ASPECTS, DoodleLayer, ImageLayer, ShapeLayer, TextLayer } from './layout.ts';

/** Video frame sizes by aspect: Canvas's, but landscape is full HD rather than 1200×675. */
export const VIDEO_ASPECTS = {
  ...ASPECTS,
  landscape: { width: 1920, height: 1080 },
} as const;
export type VideoAspect = keyof typeof VIDEO_ASPECTS;

export const MAX_VIDEO_SECONDS = 180;
export const MAX_VIDEO_LAYERS = 160;
/** Clips shown at one time: ffmpeg decodes each at once (about 6 MB a 1080p frame buffer). */
export const MAX_CLIPS_AT_ONCE = 8;
export const VIDEO_FPS = [24, 25, 30] as const;

const Seconds = z.number().finite().min(0).max(MAX_VIDEO_SECONDS);

const ClipId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"')
  .describe('Stable clip id; assigned when missing, kept by every edit.');

const Motion = z
  .object({
    kind: z.enum(['fade', 'slide_up', 'zoom_in']),
    duration_s: z.number().min(0.05).max(10).default(0.5),
  })
  .strict();

/** When a layer shows: from start_s to end_s (omitted: the end), with its motions. */
const timing = {
  start_s: Seconds.default(0),
  end_s: Seconds.optional().describe('Omitted: until the end of the video.'),
  enter: Motion.optional(),
  exit: Motion.optional(),
};

export const VideoClipLayer = z
  .object({
    kind: z.literal('video'),
    cid: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional(),
    clip_id: ClipId.optional(),
    asset_id: IdInput.describe('An owned video asset.'),
    trim_start_s: z.number().min(0).max(3_600).default(0).describe('Where in the clip to start.'),
    fit: z.enum(['cover', 'contain']).default('cover'),
    volume: z.number().min(0).max(2).default(1),
    muted: z.boolean().default(false),
    ...timing,
  })
  .strict();

export const VideoLayer = z.discriminatedUnion('kind', [
  TextLayer.extend(timing),
  ImageLayer.extend(timing),
  ShapeLayer.extend(timing),
  DoodleLayer.extend(timing),
  VideoClipLayer,
]);
export type VideoLayer = z.infer<typeof VideoLayer>;

export const AudioTrack = z
  .object({
    asset_id: IdInput.describe('An owned audio asset.'),
    start_s: Seconds.default(0),
    volume: z.number().min(0).max(2).default(1),
    fade_in_s: z.number().min(0).max(30).default(0),
    fade_out_s: z.number().min(0).max(30).default(0),
  })
  .strict();

export const VideoCanvas = z
  .object({
    type: z.literal('video'),
    aspect: z.enum(['story', 'square', 'portrait', 'landscape']).default('story'),
    duration_s: z.number().min(0.5).max(MAX_VIDEO_SECONDS),
    fps: z
      .union(
        VIDEO_FPS.map((f) => z.literal(f)) as [
          z.ZodLiteral<24>,
          z.ZodLiteral<25>,
          z.ZodLiteral<30>,
        ],
      )
      .default(30),
    bg: z
      .string()
      .regex(/^#[0-9a-f]{6}$/i, 'must be a hex colour like #1a2b3c')
      .default('#000000'),
  })
  .strict();

export const VideoLayout = z
  .object({
    canvas: VideoCanvas,
    layers: z
      .array(VideoLayer)
      .max(MAX_VIDEO_LAYERS, `at most ${MAX_VIDEO_LAYERS} layers in a video`),
    audio: AudioTrack.optional(),
  })
  .strict()
  .superRefine((layout, ctx) => {
    const duration = layout.canvas.duration_s;
    layout.layers.forEach((layer, i) => {
      const end = layer.end_s ?? duration;
      const at = (key: string) => ['layers', i, key];
      if (layer.start_s >= end)
        ctx.addIssue({ code: 'custom', path: at('start_s'), message: 'must be before end_s' });
      if (end > duration)
        ctx.addIssue({
          code: 'custom',
          path: at('end_s'),
          message: `must be at most the video's duration_s (${duration})`,
        });
      const motions = (layer.enter?.duration_s ?? 0) + (layer.exit?.duration_s ?? 0);
      if (motions > end - layer.start_s)
        ctx.addIssue({
          code: 'custom',
          path: at('enter'),
          message: `enter and exit together last ${motions} s, longer than the layer shows (${end - layer.start_s} s)`,
        });
    });
    if (layout.audio && layout.audio.start_s >= duration)
      ctx.addIssue({
        code: 'custom',
        path: ['audio', 'start_s'],
        message: `must be before the video's duration_s (${duration})`,
      });
  })
  .describe('A video design: one timeline of layers, with an optional audio track.');
export type VideoLayout = z.infer<typeof VideoLayout>;
export type VideoLayoutInput = z.input<typeof VideoLayout>;

/** Whether stored layout data is a video timeline (its canvas says so). */
export const isVideoLayout = (layout: unknown): layout is VideoLayout =>
  typeof layout === 'object' &&
  layout !== null &&
  (layout as { canvas?: { type?: unknown } }).canvas?.type === 'video';
