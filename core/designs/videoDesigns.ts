// Video designs beside the image ones: what the schema cannot check (fonts, owned assets of
// the right kind, text in total, unique cids and clip ids), layer edits on the one timeline
// (targets: index, cid or clip_id), and use_video_template, which creates the design and its
// draft post together. Video designs are never rendered to pages: export_video makes the file.
import { z } from 'zod';
import { actorOf } from '../audit/actor.ts';
import { requireBrandFor } from '../brands/service.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { invalid, ValidationFailed, type ValidationIssue } from '../kernel/errors.ts';
import { IdInput, newPartId } from '../kernel/ids.ts';
import { platformFitIssues } from '../kernel/platformFit.ts';
import { CAPABILITIES, type Kind, PLATFORMS, type Platform } from '../kernel/platforms.ts';
import { createPostOfDesign } from '../posts/service.ts';
import { closestMatch, explainIssue, toValidationIssues } from '../validation.ts';
import { makeDesign } from './db.ts';
import {
  assetIssues,
  frameIssues,
  imageLayerAsset,
  type PlacedLayer,
  textIssues,
  type WantedAsset,
} from './layerChecks.ts';
import { layerFrame, layerSummary } from './layerSummary.ts';
import type { Layer, Layout } from './layout.ts';
import type { LayerOp, LayersView } from './schema.ts';
import type { DesignCaller } from './service.ts';
import {
  MAX_CLIPS_AT_ONCE,
  MAX_VIDEO_LAYERS,
  VIDEO_ASPECTS,
  VideoLayer,
  VideoLayout,
} from './videoLayout.ts';
import { fillVideoTemplate, videoTemplateFor } from './videoTemplates.ts';

type Loc = (string | number)[];

/** The kind a post on `platform` takes for a video (video, else reel); why not, if neither. */
export function videoKind(platform: Platform, loc: Loc): Kind {
  const kinds = CAPABILITIES[platform].kinds;
  if (kinds.includes('video')) return 'video';
  if (kinds.includes('reel')) return 'reel';
  throw invalid(loc, `${platform} does not take video posts`);
}

/** Parses a whole video layout as the API does, issues under `loc`. */
function parseVideoLayout(value: unknown, loc: Loc): VideoLayout {
  const parsed = VideoLayout.safeParse(value, { error: explainIssue });
  if (!parsed.success) throw new ValidationFailed(toValidationIssues(parsed.error, loc));
  return parsed.data;
}

/**
 * Checks what the schema cannot and gives every layer a cid and every clip a clip_id (kept
 * when given; refused when repeated).
 */
export async function checkedVideoLayout(
  db: Queryable,
  accountId: string,
  given: VideoLayout,
  loc: Loc,
): Promise<VideoLayout> {
  const issues: ValidationIssue[] = [];
  const cids = new Set<string>();
  const clipIds = new Set<string>();
  const layers = given.layers.map((layer, i) => {
    const cid = layer.cid ?? newPartId('c');
    if (cids.has(cid))
      issues.push({
        loc: [...loc, 'layers', i, 'cid'],
        msg: `cid ${cid} is used twice`,
        type: 'duplicate',
      });
    cids.add(cid);
    if (layer.kind !== 'video') return { ...layer, cid };
    const clipId = layer.clip_id ?? newPartId('v');
    if (clipIds.has(clipId))
      issues.push({
        loc: [...loc, 'layers', i, 'clip_id'],
        msg: `clip_id ${clipId} is used twice`,
        type: 'duplicate',
      });
    clipIds.add(clipId);
    return { ...layer, cid, clip_id: clipId };
  });
  const crowded = crowdedClip(layers, given.canvas.duration_s);
  if (crowded !== undefined)
    issues.push({
      loc: [...loc, 'layers', crowded, 'start_s'],
      msg: `more than ${MAX_CLIPS_AT_ONCE} video layers would show at once here; at most ${MAX_CLIPS_AT_ONCE} clips may overlap in time`,
      type: 'too_many_clips',
    });
  const wanted: WantedAsset[] = [];
  const placed: PlacedLayer[] = [];
  for (const [i, layer] of layers.entries()) {
    const at = [...loc, 'layers', i];
    placed.push({ layer, at });
    if (layer.kind === 'image') wanted.push(imageLayerAsset(layer, at));
    if (layer.kind === 'video')
      wanted.push({
        id: layer.asset_id,
        kind: 'video',
        loc: [...at, 'asset_id'],
        trimS: layer.trim_start_s,
      });
  }
  if (given.audio)
    wanted.push({ id: given.audio.asset_id, kind: 'audio', loc: [...loc, 'audio', 'asset_id'] });
  issues.push(...textIssues(placed, 'a video'), ...frameIssues(placed));
  issues.push(...(await assetIssues(db, accountId, wanted)));
  if (issues.length) throw new ValidationFailed(issues);
  return { ...given, layers };
}

/** The index of the first clip that makes more than MAX_CLIPS_AT_ONCE show at one time. */
function crowdedClip(layers: readonly VideoLayer[], duration: number): number | undefined {
  const clips = layers.flatMap((l, i) =>
    l.kind === 'video' ? [{ i, from: l.start_s, to: l.end_s ?? duration }] : [],
  );
  if (clips.length <= MAX_CLIPS_AT_ONCE) return undefined;
  // Clips by start: when one starts, count those still showing (at most 160, so n² is fine).
  const byStart = [...clips].sort((a, b) => a.from - b.from || a.i - b.i);
  for (const [k, clip] of byStart.entries()) {
    const showing = byStart.slice(0, k + 1).filter((c) => c.to > clip.from).length;
    if (showing > MAX_CLIPS_AT_ONCE) return clip.i;
  }
  return undefined;
}

/** Layer ops (edit_layers) on a video's one timeline; targets index, cid or clip_id. */
export function applyVideoLayerOps(layout: VideoLayout, ops: LayerOp[]): VideoLayout {
  const layers: unknown[] = [...layout.layers];
  const fail = (loc: Loc, msg: string): never => {
    throw new ValidationFailed([{ loc, msg, type: 'invalid_op' }]);
  };
  const find = (op: { index?: number; cid?: string; clip_id?: string }, loc: Loc) => {
    const current = layers as VideoLayer[];
    let at: number | undefined;
    if (op.clip_id !== undefined) {
      at = current.findIndex((l) => l.kind === 'video' && l.clip_id === op.clip_id);
      if (at < 0) {
        const clips = current.flatMap((l) => (l.kind === 'video' && l.clip_id ? [l.clip_id] : []));
        const match = closestMatch(op.clip_id, clips);
        fail(
          [...loc, 'clip_id'],
          `no video layer has clip_id ${op.clip_id}; ${match ? `did you mean ${match}? ` : ''}its clips: ${clips.join(', ') || 'none'}`,
        );
      }
    }
    if (op.cid !== undefined) {
      const byCid = current.findIndex((l) => l.cid === op.cid);
      if (byCid < 0) fail([...loc, 'cid'], `no layer has cid ${op.cid}`);
      // Two targets must name one layer: an op is never applied to a layer it did not mean.
      if (at !== undefined && byCid !== at)
        fail([...loc, 'cid'], `cid ${op.cid} and clip_id ${op.clip_id} name different layers`);
      at = byCid;
    }
    if (at === undefined && op.index === undefined)
      fail(loc, 'give the index, cid or clip_id of a layer');
    if (op.index !== undefined && at !== undefined && op.index !== at)
      fail([...loc, 'index'], `that layer is at index ${at}, not ${op.index}`);
    const index = at ?? op.index!;
    if (index >= current.length)
      fail(
        [...loc, 'index'],
        `the video has ${current.length} layers (indexes 0-${current.length - 1})`,
      );
    return index;
  };
  const parseLayer = (value: unknown, loc: Loc) => {
    const parsed = VideoLayer.safeParse(value, { error: explainIssue });
    if (!parsed.success)
      throw new ValidationFailed(
        toValidationIssues(parsed.error, loc).map((i) => ({ ...i, type: 'invalid_layer' })),
      );
    return parsed.data;
  };
  for (const [n, op] of ops.entries()) {
    const loc: Loc = ['ops', n];
    if (op.page !== undefined && op.page !== 0)
      fail([...loc, 'page'], 'a video has one timeline (page 0)');
    if (op.op === 'set') {
      for (const f of ['kind', 'cid', 'clip_id'])
        if (f in op.fields)
          fail([...loc, 'fields', f], `${f} cannot change; delete and add instead`);
      const i = find(op, loc);
      layers[i] = parseLayer({ ...(layers[i] as object), ...op.fields }, [...loc, 'fields']);
    } else if (op.op === 'add') {
      if (layers.length >= MAX_VIDEO_LAYERS)
        fail(loc, `at most ${MAX_VIDEO_LAYERS} layers in a video`);
      const at = op.index ?? layers.length;
      if (at > layers.length) fail([...loc, 'index'], `insert position must be 0-${layers.length}`);
      layers.splice(at, 0, parseLayer(op.layer, [...loc, 'layer']));
    } else if (op.op === 'delete') {
      layers.splice(find(op, loc), 1);
    } else {
      const i = find(op, loc);
      if (op.to >= layers.length) fail([...loc, 'to'], `must be 0-${layers.length - 1}`);
      const [layer] = layers.splice(i, 1);
      layers.splice(op.to, 0, layer);
    }
  }
  // The whole timeline again: windows within the duration, motions within their windows.
  return parseVideoLayout({ ...layout, layers }, ['layout']);
}

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

/** MCP use_video_template: the filled video design and a draft post of it, together. */
export async function useVideoTemplate(
  deps: { pool: Pool },
  caller: DesignCaller & { features: readonly string[] },
  input: UseVideoTemplateInput,
): Promise<UsedVideoTemplate> {
  const template = videoTemplateFor(caller, input.template);
  if (!template)
    throw invalid(
      ['template'],
      `no video template named "${input.template}"; list_video_templates lists them`,
    );
  const slots = (kind: 'slot' | 'media_slot') =>
    template.draft.layers.flatMap((l) => (typeof l[kind] === 'string' ? [l[kind]] : []));
  for (const [field, kind] of [
    ['texts', 'slot'],
    ['media', 'media_slot'],
  ] as const) {
    const known = slots(kind);
    for (const slot of Object.keys(input[field]))
      if (!known.includes(slot)) {
        const match = closestMatch(slot, known);
        throw invalid(
          [field, slot],
          `template ${template.name} has no ${field === 'texts' ? 'text' : 'media'} slot "${slot}"; ${match ? `did you mean "${match}"? ` : ''}its ${field === 'texts' ? 'text' : 'media'} slots: ${known.join(', ') || 'none'}`,
        );
      }
  }
  // Checked before anything is written: the insert's foreign key would refuse a missing brand
  // with an internal error, and accept another account's.
  const brandId = (await requireBrandFor(deps.pool, caller, input.brand_id)).id;
  const kind = videoKind(input.platform, ['platform']);
  const {
    layout: filled,
    removed,
    mediaSlots,
  } = fillVideoTemplate(template, {
    texts: input.texts,
    media: input.media,
    audio: input.audio_asset_id,
  });
  // An asset refused in the filled layout is named by the slot or argument that gave it.
  const layout = await checkedVideoLayout(
    deps.pool,
    caller.accountId,
    parseVideoLayout(filled, ['template']),
    [],
  ).catch((err: unknown) => {
    if (!(err instanceof ValidationFailed)) throw err;
    throw new ValidationFailed(
      err.issues.map((issue) => {
        const [where, index] = issue.loc;
        const slot = where === 'layers' ? mediaSlots[index as number] : undefined;
        if (slot) return { ...issue, loc: ['media', slot] };
        if (where === 'audio') return { ...issue, loc: ['audio_asset_id'] };
        return { ...issue, loc: ['template', ...issue.loc] };
      }),
    );
  });
  const body = input.body ?? Object.values(input.texts).find((t) => t.trim()) ?? template.title;
  const fit = platformFitIssues({
    platform: input.platform,
    kind,
    body,
    hashtags: null,
    media: ['video'],
  });
  if (fit.length) throw new ValidationFailed(fit);
  return withTransaction(deps.pool, async (tx) => {
    const design = await makeDesign(tx, caller, {
      from: 'layout',
      brandId,
      template: template.name,
      layout: layout as unknown as Layout,
    });
    // A video design has no pages: the post shows its export once there is one.
    const post = await createPostOfDesign(
      tx,
      { accountId: caller.accountId, brandId, actor: actorOf(caller.credential) },
      { platform: input.platform, kind, body, hashtags: null, scheduleAt: null },
      { id: design.id },
    );
    return {
      design_id: design.id,
      post_id: post.id,
      layout_version: design.layout_version,
      kind,
      removed_slots: removed,
    };
  });
}

/** get_layers of a video design: its one timeline, with clip ids and times. */
export function videoLayers(designId: string, version: number, layout: VideoLayout): LayersView {
  const { aspect, duration_s } = layout.canvas;
  const size = VIDEO_ASPECTS[aspect];
  return {
    design_id: designId,
    layout_version: version,
    aspect,
    ...size,
    pages: 1,
    layers: layout.layers.map((layer, index) => {
      const times = { start_s: layer.start_s, end_s: layer.end_s ?? duration_s };
      if (layer.kind === 'video')
        return {
          page: 0,
          index,
          cid: layer.cid ?? '',
          kind: 'video',
          summary: `video asset ${layer.asset_id} (${layer.fit}${layer.muted ? ', muted' : ''}) from ${layer.trim_start_s} s`,
          frame: { x: 0, y: 0, w: size.width, h: size.height, rotation: 0 },
          clip_id: layer.clip_id,
          ...times,
        };
      const still: Layer = layer;
      return {
        page: 0,
        index,
        cid: layer.cid ?? '',
        kind: layer.kind,
        summary: layerSummary(still),
        frame: layerFrame(still),
        ...times,
      };
    }),
  };
}
