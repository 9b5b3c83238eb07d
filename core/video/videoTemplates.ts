// Video templates (MCP list_video_templates, use_video_template): three styles on each of the
// four video aspects. A template is a timeline with slots: text slots (a text layer's `slot`),
// media slots (a clip or a photo layer named by `media_slot`, filled with an owned asset) and
// the audio slot. use_video_template fills the slots it is given and removes the rest, so
// no placeholder ever reaches a published video.
import { VIDEO_ASPECTS, type VideoAspect, type VideoLayoutInput } from '../designs/schema.ts';
import { featureRequired } from '../kernel/errors.ts';
import type { ListVideoTemplatesQuery, VideoTemplateSummary } from './schema.ts';

type DraftLayer = Record<string, unknown> & { kind: string; media_slot?: 'clip' | 'photo' };

export type VideoTemplate = {
  name: string;
  title: string;
  style: string;
  aspect: VideoAspect;
  premium: boolean;
  description: string;
  /** Its timeline: media layers carry `media_slot` and no asset until filled. */
  draft: { duration_s: number; bg: string; layers: DraftLayer[] };
};

const ASPECT_LIST = Object.keys(VIDEO_ASPECTS) as VideoAspect[];

/** Sizes relative to the frame, so each style reads the same on every aspect. */
function frameOf(aspect: VideoAspect) {
  const { width: w, height: h } = VIDEO_ASPECTS[aspect];
  const unit = Math.min(w, h) / 1080;
  return { w, h, unit, margin: Math.round(72 * unit) };
}

const STYLES: {
  style: string;
  title: string;
  premium: boolean;
  description: string;
  draft: (aspect: VideoAspect) => VideoTemplate['draft'];
}[] = [
  {
    style: 'clip-headline',
    title: 'Clip with headline',
    premium: false,
    description: 'A full-frame clip, a headline that slides up, a call to action at the end.',
    draft: (aspect) => {
      const { w, h, unit, margin } = frameOf(aspect);
      return {
        duration_s: 10,
        bg: '#000000',
        layers: [
          { kind: 'video', media_slot: 'clip', fit: 'cover' },
          {
            kind: 'shape',
            shape: 'rect',
            x: 0,
            y: Math.round(h * 0.62),
            w,
            h: Math.round(h * 0.38),
            fill: '#00000099',
            start_s: 0.3,
            end_s: 6,
            enter: { kind: 'fade', duration_s: 0.4 },
            exit: { kind: 'fade', duration_s: 0.4 },
          },
          {
            kind: 'text',
            slot: 'headline',
            x: margin,
            y: Math.round(h * 0.66),
            w: w - 2 * margin,
            h: Math.round(h * 0.3),
            size: Math.round(84 * unit),
            weight: 'bold',
            font: 'Montserrat',
            color: '#ffffff',
            start_s: 0.5,
            end_s: 6,
            enter: { kind: 'slide_up', duration_s: 0.6 },
            exit: { kind: 'fade', duration_s: 0.4 },
          },
          {
            kind: 'text',
            slot: 'cta',
            x: margin,
            y: Math.round(h * 0.45),
            w: w - 2 * margin,
            size: Math.round(72 * unit),
            weight: 'bold',
            align: 'center',
            font: 'Montserrat',
            color: '#ffffff',
            start_s: 6.5,
            enter: { kind: 'zoom_in', duration_s: 0.5 },
          },
        ],
      };
    },
  },
  {
    style: 'lower-third',
    title: 'Interview lower third',
    premium: true,
    description: "A full-frame clip with the speaker's name and role in a lower third.",
    draft: (aspect) => {
      const { w, h, unit, margin } = frameOf(aspect);
      const top = Math.round(h * 0.78);
      return {
        duration_s: 12,
        bg: '#000000',
        layers: [
          { kind: 'video', media_slot: 'clip', fit: 'cover' },
          {
            kind: 'shape',
            shape: 'rect',
            x: margin,
            y: top,
            w: Math.round(w * 0.7),
            h: Math.round(150 * unit),
            radius: Math.round(16 * unit),
            fill: '#1d4ed8',
            start_s: 1,
            end_s: 6,
            enter: { kind: 'slide_up', duration_s: 0.5 },
            exit: { kind: 'fade', duration_s: 0.5 },
          },
          {
            kind: 'text',
            slot: 'name',
            x: margin + Math.round(28 * unit),
            y: top + Math.round(18 * unit),
            w: Math.round(w * 0.7) - Math.round(56 * unit),
            h: Math.round(64 * unit),
            size: Math.round(52 * unit),
            weight: 'bold',
            font: 'Inter',
            color: '#ffffff',
            start_s: 1.2,
            end_s: 6,
            enter: { kind: 'fade', duration_s: 0.4 },
            exit: { kind: 'fade', duration_s: 0.5 },
          },
          {
            kind: 'text',
            slot: 'role',
            x: margin + Math.round(28 * unit),
            y: top + Math.round(84 * unit),
            w: Math.round(w * 0.7) - Math.round(56 * unit),
            h: Math.round(50 * unit),
            size: Math.round(36 * unit),
            font: 'Inter',
            color: '#dbeafe',
            start_s: 1.4,
            end_s: 6,
            enter: { kind: 'fade', duration_s: 0.4 },
            exit: { kind: 'fade', duration_s: 0.5 },
          },
        ],
      };
    },
  },
  {
    style: 'photo-quote',
    title: 'Photo with quote',
    premium: false,
    description: 'A slowly zooming photo, a quote fading in, and its author.',
    draft: (aspect) => {
      const { w, h, unit, margin } = frameOf(aspect);
      return {
        duration_s: 8,
        bg: '#111827',
        layers: [
          {
            kind: 'image',
            media_slot: 'photo',
            x: 0,
            y: 0,
            w,
            h,
            fit: 'cover',
            opacity: 0.55,
            enter: { kind: 'zoom_in', duration_s: 2 },
          },
          {
            kind: 'text',
            slot: 'quote',
            x: margin,
            y: Math.round(h * 0.3),
            w: w - 2 * margin,
            h: Math.round(h * 0.4),
            size: Math.round(64 * unit),
            font: 'Playfair Display',
            align: 'center',
            color: '#ffffff',
            start_s: 0.8,
            enter: { kind: 'fade', duration_s: 0.8 },
          },
          {
            kind: 'text',
            slot: 'author',
            x: margin,
            y: Math.round(h * 0.74),
            w: w - 2 * margin,
            size: Math.round(40 * unit),
            font: 'Inter',
            align: 'center',
            color: '#e5e7eb',
            start_s: 2,
            enter: { kind: 'slide_up', duration_s: 0.6 },
          },
        ],
      };
    },
  },
];

export const VIDEO_TEMPLATES: ReadonlyMap<string, VideoTemplate> = new Map(
  STYLES.flatMap((s) =>
    ASPECT_LIST.map((aspect): [string, VideoTemplate] => {
      const name = `${s.style}-${aspect}`;
      return [
        name,
        {
          name,
          title: `${s.title} (${aspect})`,
          style: s.style,
          aspect,
          premium: s.premium,
          description: s.description,
          draft: s.draft(aspect),
        },
      ];
    }),
  ),
);

export const textSlotsOf = (t: VideoTemplate) =>
  t.draft.layers.flatMap((l) => (l.kind === 'text' && typeof l.slot === 'string' ? [l.slot] : []));
export const mediaSlotsOf = (t: VideoTemplate) =>
  t.draft.layers.flatMap((l) => (l.media_slot ? [l.media_slot] : []));

/** list_video_templates: filtered, in name order, one page at `offset`. */
export function listVideoTemplates(q: ListVideoTemplatesQuery): {
  templates: VideoTemplateSummary[];
} {
  const words = (q.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const matching = [...VIDEO_TEMPLATES.values()]
    .filter((t) => !q.shape || t.aspect === q.shape)
    .filter((t) => words.every((w) => `${t.name} ${t.title} ${t.style}`.toLowerCase().includes(w)))
    .sort((a, b) => a.name.localeCompare(b.name));
  return {
    templates: matching.slice(q.offset, q.offset + q.limit).map((t) => ({
      name: t.name,
      title: t.title,
      aspect: t.aspect,
      duration_s: t.draft.duration_s,
      premium: t.premium,
      text_slots: textSlotsOf(t),
      media_slots: mediaSlotsOf(t),
      description: t.description,
    })),
  };
}

/** Whether a caller can use the template: a premium one needs the video_templates feature. */
export const videoTemplateAllowed = (
  caller: { features: readonly string[] },
  t: Pick<VideoTemplate, 'premium'>,
) => !t.premium || caller.features.includes('video_templates');

/** The template by name for a caller; a premium one needs the video_templates feature. */
export function videoTemplateFor(
  caller: { features: readonly string[] },
  name: string,
): VideoTemplate | undefined {
  const t = VIDEO_TEMPLATES.get(name);
  if (t && !videoTemplateAllowed(caller, t)) throw featureRequired('video_templates');
  return t;
}

/**
 * The template's timeline with the given slots filled: texts into text slots, assets into
 * media slots, the audio track when given. Slots left empty are removed, and answered.
 */
export function fillVideoTemplate(
  t: VideoTemplate,
  fill: { texts: Record<string, string>; media: Record<string, string>; audio?: string },
): { layout: VideoLayoutInput; removed: string[]; mediaSlots: (string | null)[] } {
  const removed: string[] = [];
  /** The media slot each layer of the layout fills, by index (null: none). */
  const mediaSlots: (string | null)[] = [];
  const layers = t.draft.layers.flatMap((layer) => {
    const { media_slot, ...rest } = layer;
    if (media_slot) {
      const asset = fill.media[media_slot];
      if (!asset) {
        removed.push(media_slot);
        return [];
      }
      mediaSlots.push(media_slot);
      return [
        { ...rest, asset_id: asset, ...(rest.kind === 'video' ? { clip_id: media_slot } : {}) },
      ];
    }
    if (rest.kind === 'text' && typeof rest.slot === 'string') {
      const text = fill.texts[rest.slot];
      if (!text?.trim()) {
        removed.push(rest.slot);
        return [];
      }
      mediaSlots.push(null);
      // Copy longer than a framed slot holds shrinks (down to 45%) before lines are left out.
      return [{ fit: 'shrink', ...rest, text }];
    }
    mediaSlots.push(null);
    return [rest];
  });
  if (!fill.audio) removed.push('audio');
  return {
    layout: {
      canvas: { type: 'video', aspect: t.aspect, duration_s: t.draft.duration_s, bg: t.draft.bg },
      layers: layers as VideoLayoutInput['layers'],
      ...(fill.audio ? { audio: { asset_id: fill.audio, fade_out_s: 1 } } : {}),
    },
    removed,
    mediaSlots,
  };
}
