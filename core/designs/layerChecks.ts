// What the layout schemas cannot check, written once for Canvas layouts and video timelines
// (checkedLayout.ts): the text a layout holds in all, known fonts, and that each asset a layer
// names is the caller's, of its kind.
import { FONT_NAMES, isKnownFont } from '../../render/fontFamilies.ts';
import { ownedAssets } from '../assets/service.ts';
import type { Queryable } from '../db/pool.ts';
import type { ValidationIssue } from '../kernel/errors.ts';
import { grouped } from '../validation.ts';
import { MAX_TEXT_PER_LAYOUT } from './layout.ts';

type Loc = ValidationIssue['loc'];

/** A layer with where it stands in the input. */
export type PlacedLayer = {
  layer: { kind: string; text?: string; font?: string; asset_id?: string; frame_s?: number };
  at: Loc;
};

/**
 * Unknown fonts, and text past MAX_TEXT_PER_LAYOUT in all (named at the layer that goes over,
 * once). `whole` names the whole in the message ("a layout", "a video"), `together` how it
 * adds up ("all pages together").
 */
export function textIssues(
  placed: readonly PlacedLayer[],
  whole: string,
  together?: string,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  let text = 0;
  for (const { layer, at } of placed) {
    if (layer.kind !== 'text') continue;
    if (text <= MAX_TEXT_PER_LAYOUT) {
      text += layer.text?.length ?? 0;
      if (text > MAX_TEXT_PER_LAYOUT)
        issues.push({
          loc: [...at, 'text'],
          msg: `${whole} holds at most ${grouped(MAX_TEXT_PER_LAYOUT)} characters of text${together ? `, ${together}` : ''}; with this layer it holds ${grouped(text)}: shorten or remove text`,
          type: 'too_long',
        });
    }
    if (layer.font !== undefined && !isKnownFont(layer.font))
      issues.push({
        loc: [...at, 'font'],
        msg: `unknown font "${layer.font}"; available: ${FONT_NAMES.join(', ')}`,
        type: 'unknown_font',
      });
  }
  return issues;
}

/** An asset a layer names: its id, the kind it must be, and where it was given. */
export type WantedAsset = {
  id: string;
  kind: 'image' | 'video' | 'audio';
  loc: Loc;
  /** A clip's trim_start_s, or the second of a video's frame (frame_s): inside the video. */
  trimS?: number;
  /** The field trimS was given as (default trim_start_s). */
  trimField?: string;
  /** A video whose frame is drawn: at most this many pixels a frame. */
  maxPixels?: number;
};

/**
 * The largest video a design draws a frame of (8K UHD): ffmpeg decodes a whole frame, and a
 * 16000×16000 one took 1.5 GB.
 */
export const MAX_FRAME_PIXELS = 7680 * 4320;
/** Distinct video frames one layout draws: each is an ffmpeg run over its video. */
export const MAX_VIDEO_FRAMES = 10;

/** The asset an image layer shows: an image, or a video when it shows a frame (frame_s). */
export const imageLayerAsset = (
  layer: { asset_id: string; frame_s?: number | undefined },
  at: Loc,
): WantedAsset =>
  layer.frame_s === undefined
    ? { id: layer.asset_id, kind: 'image', loc: [...at, 'asset_id'] }
    : {
        id: layer.asset_id,
        kind: 'video',
        loc: [...at, 'asset_id'],
        trimS: layer.frame_s,
        trimField: 'frame_s',
        maxPixels: MAX_FRAME_PIXELS,
      };

/** A layout that draws more distinct video frames than MAX_VIDEO_FRAMES: where it goes over. */
export function frameIssues(placed: readonly PlacedLayer[]): ValidationIssue[] {
  const frames = new Set<string>();
  for (const { layer, at } of placed)
    if (layer.kind === 'image' && layer.frame_s !== undefined) {
      frames.add(`${layer.asset_id}@${layer.frame_s}`);
      if (frames.size > MAX_VIDEO_FRAMES)
        return [
          {
            loc: [...at, 'frame_s'],
            msg: `at most ${MAX_VIDEO_FRAMES} distinct video frames a layout; reuse a frame, or use image assets`,
            type: 'too_many_frames',
          },
        ];
    }
  return [];
}

const article = (kind: string) => (kind === 'video' ? 'a' : 'an');

/** Each wanted asset that is not the account's, not of its kind, or trimmed past its end. */
export async function assetIssues(
  db: Queryable,
  accountId: string,
  wanted: readonly WantedAsset[],
): Promise<ValidationIssue[]> {
  if (!wanted.length) return [];
  const found = new Map(
    (
      await ownedAssets(
        db,
        accountId,
        wanted.map((w) => w.id),
      )
    ).map((a) => [a.id, a]),
  );
  const issues: ValidationIssue[] = [];
  for (const w of wanted) {
    const asset = found.get(w.id);
    if (asset?.kind !== w.kind)
      issues.push({
        loc: w.loc,
        msg: asset
          ? `asset ${w.id} is ${article(asset.kind)} ${asset.kind}; this takes ${article(w.kind)} ${w.kind} asset`
          : `no ${w.kind} asset ${w.id} of yours (list_assets with kind=${w.kind} lists them)`,
        type: 'not_found',
      });
    else if (
      w.maxPixels !== undefined &&
      asset.width !== null &&
      asset.height !== null &&
      asset.width * asset.height > w.maxPixels
    )
      issues.push({
        loc: w.loc,
        msg: `video ${w.id} is ${asset.width}×${asset.height}; a design draws frames of videos up to 7680×4320`,
        type: 'too_big',
      });
    // A clip cut past its end, or a frame after it, would show nothing at all.
    else if (w.trimS !== undefined && asset.duration_s !== null && w.trimS >= asset.duration_s) {
      const field = w.trimField ?? 'trim_start_s';
      issues.push({
        loc: [...w.loc.slice(0, -1), field],
        msg: `the ${w.trimField ? 'video' : 'clip'} is ${asset.duration_s} s long; ${field} must be less than that`,
        type: 'too_big',
      });
    }
  }
  return issues;
}
