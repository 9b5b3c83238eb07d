// A layout checked beyond its schema before it is stored, for either kind: a Canvas layout
// (fonts, drawings, owned images, its total text) and a video's timeline (owned assets of the
// right kind, unique cids and clip ids, clips at once). Each gives layers their cids.
import type { Queryable } from '../db/pool.ts';
import { missingDrawings } from '../drawings/service.ts';
import { invalid, ValidationFailed, type ValidationIssue } from '../kernel/errors.ts';
import { newPartId } from '../kernel/ids.ts';
import {
  assetIssues,
  frameIssues,
  imageLayerAsset,
  type PlacedLayer,
  textIssues,
  type WantedAsset,
} from './layerChecks.ts';
import { assignCids, type Layout, pagesOf } from './layout.ts';
import { MAX_CLIPS_AT_ONCE, type VideoLayer, type VideoLayout } from './videoLayout.ts';

type Loc = (string | number)[];

/** Distinct drawings one layout draws: each is read whole (up to 200,000 points) to render. */
export const MAX_DRAWINGS_PER_LAYOUT = 10;

/** Drawing layers naming no drawing of the account's, and past MAX_DRAWINGS_PER_LAYOUT. */
async function drawingIssues(
  db: Queryable,
  accountId: string,
  drawings: { id: string; at: Loc }[],
): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const distinct = [...new Set(drawings.map((d) => d.id))];
  if (distinct.length > MAX_DRAWINGS_PER_LAYOUT) {
    const over = drawings.find((d) => d.id === distinct[MAX_DRAWINGS_PER_LAYOUT])!;
    issues.push({
      loc: [...over.at, 'drawing_id'],
      msg: `at most ${MAX_DRAWINGS_PER_LAYOUT} distinct drawings a layout`,
      type: 'too_many_drawings',
    });
  }
  const missing = await missingDrawings(db, accountId, distinct);
  for (const d of drawings)
    if (missing.has(d.id))
      issues.push({
        loc: [...d.at, 'drawing_id'],
        msg: `no drawing ${d.id} of yours`,
        type: 'not_found',
      });
  return issues;
}

/**
 * Checks what the schema cannot (fonts, drawings, owned images, the layout's total text) and
 * gives layers cids.
 */
export async function checkedLayout(
  db: Queryable,
  accountId: string,
  given: Layout,
  loc: (string | number)[],
): Promise<Layout> {
  const { layout, duplicates } = assignCids(given);
  if (duplicates.length)
    throw invalid(loc, `layer cids must be unique; repeated: ${duplicates.join(', ')}`);
  const placed: PlacedLayer[] = [];
  const images: WantedAsset[] = [];
  const drawings: { id: string; at: Loc }[] = [];
  const issues: ValidationIssue[] = [];
  for (const [p, page] of pagesOf(layout).entries())
    for (const [i, layer] of page.layers.entries()) {
      const at = [...loc, ...(layout.pages ? ['pages', p] : []), 'layers', i];
      placed.push({ layer, at });
      if (layer.kind === 'drawing') drawings.push({ id: layer.drawing_id, at });
      if (layer.kind === 'image') images.push(imageLayerAsset(layer, at));
    }
  issues.unshift(...textIssues(placed, 'a layout', 'all pages together'), ...frameIssues(placed));
  issues.push(...(await assetIssues(db, accountId, images)));
  issues.push(...(await drawingIssues(db, accountId, drawings)));
  if (issues.length) throw new ValidationFailed(issues);
  return layout;
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
