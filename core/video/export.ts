// Exporting a video design (the export_video job, `video` pool): its clips and audio track
// copied to a working directory, each still layer drawn once by the Canvas renderer as a
// transparent PNG of its drawn pixels and where they sit, then one ffmpeg run composes them (render/videoCompose.ts) while
// its progress moves the job's. The MP4 becomes a video asset of the design's brand, shown by
// every unpublished post of the design. The working directory goes whatever happens; a
// failure keeps no asset and leaves the design as it was.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { RenderPool } from '../../render/renderPool.ts';
import {
  type ClipLayer,
  composeArgs,
  progressOf,
  type StillLayer,
  type VideoComposition,
  withFilterScript,
} from '../../render/videoCompose.ts';
import { fileMadeAsset, storedMedia } from '../assets/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import {
  type DesignRow,
  type Layer,
  VIDEO_ASPECTS,
  type VideoLayer,
  type VideoLayout,
} from '../designs/schema.ts';
import {
  designForJob,
  drawPage,
  holdDesign,
  isVideoLayout,
  ownedImages,
  type PageImageCache,
} from '../designs/service.ts';
import { type FinishInside, JobFailure, type ProgressReport } from '../jobs/service.ts';
import { DomainError } from '../kernel/errors.ts';
import { formatBytes } from '../kernel/sizes.ts';
import { probeMedia } from '../media/probe.ts';
import { MediaToolFailed, type MediaTools, runMediaTool, safeInput } from '../media/tools.ts';
import { workFolder } from '../media/workFolders.ts';
import { attachDesignPages, detachDesignPages } from '../posts/service.ts';
import type { Storage } from '../storage/storage.ts';

export type VideoExportDeps = {
  pool: Pool;
  storage: Storage;
  renderer: RenderPool;
  /** The worker's scaled-image cache, shared with Canvas renders. */
  images: PageImageCache;
  tools: MediaTools;
  /** The longest one export's ffmpeg run may take (it is killed past it). */
  encodeTimeoutMs: number;
  /** The most media one export copies (MAX_MEDIA_BYTES unless given). */
  maxMediaBytes?: number;
};

export type ExportRequest = { design_id: string; layout_version: number };

/** What a succeeded export job's `result` holds (the API adds the asset's addresses). */
export type ExportResult = {
  asset_id: string;
  duration_s: number;
  width: number;
  height: number;
  bytes: number;
};

const layerName = (layer: VideoLayer, i: number) =>
  `layer ${i}${layer.cid ? ` (cid ${layer.cid})` : ''}${layer.kind === 'video' && layer.clip_id ? ` (clip_id ${layer.clip_id})` : ''}`;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** Copies stored bytes to a local file. */
async function copyToFile(storage: Storage, key: string, file: string) {
  await pipeline(await storage.get(key), createWriteStream(file, { mode: 0o600 }));
}

/**
 * Every promise's value once all have settled, or the first failure: nothing still writes
 * into the working directory when it is removed.
 */
async function allSettled<T>(promises: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}

/** The still part of a layer: what the Canvas renderer draws (no timing keys). */
function stillOf(layer: Exclude<VideoLayer, { kind: 'video' }>): Layer {
  const { start_s: _s, end_s: _e, enter: _in, exit: _out, ...still } = layer;
  return still as Layer;
}

/** The most media (distinct clips and the audio track) one export or preview copies. */
export const MAX_MEDIA_BYTES = 2_000_000_000;

/** The design an export or preview was asked for, as it still is; why not, if it changed. */
export async function requestedVideo(
  pool: Pool,
  request: ExportRequest,
): Promise<{ design: DesignRow; layout: VideoLayout }> {
  const design = await designForJob(pool, request.design_id);
  if (!design) throw new JobFailure('The design was deleted before its job ran.');
  if (design.layout_version !== request.layout_version)
    throw new JobFailure(
      `The design changed while waiting (layout_version ${design.layout_version} now, ${request.layout_version} asked for); ask again.`,
    );
  if (!isVideoLayout(design.layout)) throw new JobFailure('The design is not a video.');
  return { design, layout: design.layout as VideoLayout };
}

/**
 * The design as ffmpeg composes it, in `work`: its clips and audio track copied there and
 * probed, each still layer drawn (cut to its pixels) beside them. With `at` (a preview's
 * times), only the layers shown at one of those times, and no sound.
 */
export async function prepareComposition(
  deps: VideoExportDeps,
  design: DesignRow,
  whole: VideoLayout,
  work: string,
  report: ProgressReport,
  at?: readonly number[],
): Promise<VideoComposition> {
  const { width, height } = VIDEO_ASPECTS[whole.canvas.aspect];
  const duration = whole.canvas.duration_s;
  const shown = (l: VideoLayer) =>
    !at || at.some((t) => l.start_s <= t && t < (l.end_s ?? duration));
  // Layers keep their index (errors name it); a layer not shown is left undrawn.
  const layout = {
    ...whole,
    layers: whole.layers.map((l) => (shown(l) ? l : undefined)),
    audio: at ? undefined : whole.audio,
  };
  await report(0, 'fetching_media');
  const mediaIds = [
    ...layout.layers.flatMap((l) => (l?.kind === 'video' ? [l.asset_id] : [])),
    ...(layout.audio ? [layout.audio.asset_id] : []),
  ];
  const media = new Map(
    (await storedMedia(deps.pool, design.account_id, mediaIds)).map((m) => [m.id, m]),
  );
  // Each is copied to the worker's disk before ffmpeg reads it: bounded before any copy.
  const total = [...media.values()].reduce((sum, m) => sum + m.bytes, 0);
  const most = deps.maxMediaBytes ?? MAX_MEDIA_BYTES;
  if (total > most)
    throw new JobFailure(
      `The clips and audio this needs add up to ${formatBytes(total)}; at most ${formatBytes(most)} of media go into one video: use fewer or shorter clips.`,
    );
  // Each asset is copied and probed once, however many layers name it.
  const local = new Map<string, Promise<{ file: string; hasAudio: boolean }>>();
  const fetchMedia = async (id: string, kind: 'video' | 'audio', what: string) => {
    const found = media.get(id);
    if (!found || found.kind !== kind)
      throw new JobFailure(
        `${what} names ${kind} asset ${id}, which no longer exists or is not a ${kind}; replace it (edit_layers with asset_id) and export again.`,
      );
    const known = local.get(id);
    if (known) return known;
    const fetched = (async () => {
      const file = path.join(work, `media-${found.id}`);
      await copyToFile(deps.storage, found.storage_key, file);
      const facts = await probeMedia(deps.tools, file);
      if (!facts) throw new JobFailure(`${what}: asset ${id} can no longer be read as ${kind}.`);
      return { file, hasAudio: facts.hasAudio };
    })();
    local.set(id, fetched);
    return fetched;
  };

  const stills = layout.layers.filter((l) => l && l.kind !== 'video').length;
  const owned = await ownedImages(
    deps.pool,
    design.account_id,
    layout.layers.flatMap((l) => (l?.kind === 'image' ? [stillOf(l)] : [])),
  );
  let drawn = 0;
  if (stills) await report(0.02, 'rendering_overlays');
  // Media is copied and probed while the stills are drawn (in the render threads).
  const prepare = async (
    layer: VideoLayer | undefined,
    i: number,
  ): Promise<StillLayer | ClipLayer | undefined> => {
    if (!layer) return undefined;
    const timing = {
      startS: layer.start_s,
      endS: layer.end_s ?? duration,
      enter: layer.enter && { kind: layer.enter.kind, durationS: layer.enter.duration_s },
      exit: layer.exit && { kind: layer.exit.kind, durationS: layer.exit.duration_s },
    };
    if (layer.kind === 'video') {
      const clip = await fetchMedia(layer.asset_id, 'video', layerName(layer, i));
      return {
        type: 'clip',
        ...timing,
        file: clip.file,
        trimStartS: layer.trim_start_s,
        fit: layer.fit,
        volume: layer.volume,
        muted: layer.muted,
        hasAudio: clip.hasAudio,
      };
    }
    // Drawn cut to its pixels: ffmpeg decodes and blends a still on every frame it shows.
    const { png, box } = await drawPage(
      deps,
      owned,
      { layers: [stillOf(layer)] },
      { width, height, bg: '#00000000', cut: true },
    ).catch((err: unknown) => {
      throw new JobFailure(`${layerName(layer, i)} could not be drawn: ${(err as Error).message}`);
    });
    drawn++;
    await report(0.02 + 0.08 * (drawn / stills), 'rendering_overlays');
    if (!box || box.width === 0) return undefined;
    const file = path.join(work, `still-${i}.png`);
    await pipeline([png], createWriteStream(file));
    return { type: 'still', ...timing, file, box };
  };
  const [prepared, audioFile] = await Promise.all([
    allSettled(layout.layers.map(prepare)),
    allSettled([
      layout.audio
        ? fetchMedia(layout.audio.asset_id, 'audio', 'The audio track')
        : Promise.resolve(undefined),
    ]),
  ]).then(([layers, [audio]]) => [layers, audio] as const);
  const layers = prepared.filter((l) => l !== undefined);
  const audio =
    layout.audio && audioFile
      ? {
          file: audioFile.file,
          startS: layout.audio.start_s,
          volume: layout.audio.volume,
          fadeInS: layout.audio.fade_in_s,
          fadeOutS: layout.audio.fade_out_s,
        }
      : undefined;
  return {
    width,
    height,
    fps: layout.canvas.fps,
    durationS: duration,
    background: layout.canvas.bg,
    layers,
    audio,
  };
}

/** `args` with their filter graph moved into a file in `work` (render/videoCompose.ts). */
export async function scripted(args: string[], work: string, name = 'filters'): Promise<string[]> {
  const file = path.join(work, `${name}.txt`);
  const moved = withFilterScript(args, file);
  await writeFile(file, moved.script);
  return moved.args;
}

/**
 * Runs one export. Throws JobFailure for what the user must change (a deleted asset, a
 * changed design, the quota); other errors are the job runner's to retry.
 */
export async function exportVideo(
  deps: VideoExportDeps,
  request: ExportRequest,
  report: ProgressReport,
  finish: FinishInside,
): Promise<ExportResult> {
  const { design, layout } = await requestedVideo(deps.pool, request);
  const { width, height } = VIDEO_ASPECTS[layout.canvas.aspect];
  const duration = layout.canvas.duration_s;

  // Should this process be killed, its ffmpeg dies with it (runMediaTool) and the next
  // worker to start removes this folder (workFolders.ts).
  const work = await workFolder('export');
  try {
    const composition = await prepareComposition(deps, design, layout, work, report);
    await report(0.1, 'encoding');
    const output = path.join(work, 'export.mp4');
    let progressText = '';
    let encoding = true;
    await runMediaTool(
      deps.tools.ffmpegPath,
      await scripted(composeArgs(composition, output, safeInput), work),
      {
        timeoutMs: deps.encodeTimeoutMs,
        maxOutputBytes: 64 * 1024 * 1024,
        nice: 10,
        onStdout: (chunk) => {
          progressText = (progressText + chunk.toString()).slice(-4096);
          const done = progressOf(progressText, duration);
          // Unawaited; one still in flight when storing begins cannot take progress back.
          if (done !== undefined && encoding)
            void report(0.1 + 0.85 * done, 'encoding').catch(() => undefined);
        },
      },
    ).catch((err: unknown) => {
      if (err instanceof MediaToolFailed)
        throw new JobFailure(
          err.reason === 'timeout'
            ? `Encoding took longer than ${deps.encodeTimeoutMs / 1000} s and was stopped; shorten the video or use fewer layers.`
            : `ffmpeg could not encode the video: ${err.message.slice(-300)}`,
        );
      throw err;
    });

    encoding = false;
    await report(0.96, 'storing');
    const bytes = (await stat(output)).size;
    const sha256 = await sha256Of(output);
    const key = `exports/${design.account_id}/${randomUUID()}.mp4`;
    await deps.storage.putFile(key, output);
    try {
      return await withTransaction(deps.pool, async (tx) => {
        // The design may have changed during the encode: an old version's video must not
        // replace what its posts show (the design stays locked until the asset commits).
        const now = await holdDesign(tx, design.account_id, design.id);
        if (now?.layout_version !== design.layout_version)
          throw new JobFailure(
            now
              ? `The design changed while it was exported (layout_version ${now.layout_version} now, ${design.layout_version} exported); export it again.`
              : 'The design was deleted before its export finished.',
          );
        const row = await fileMadeAsset(
          tx,
          {
            accountId: design.account_id,
            brandId: design.brand_id,
            kind: 'video',
            mime: 'video/mp4',
            bytes,
            filename: `design-${design.id}-v${design.layout_version}.mp4`,
            sha256,
            width,
            height,
            durationS: duration,
            storageKey: key,
          },
          { what: 'The exported video', retry: 'export again' },
        );
        await detachDesignPages(tx, design.id);
        await attachDesignPages(tx, design.id, [row.id]);
        const result = { asset_id: row.id, duration_s: duration, width, height, bytes };
        // The asset and the job's success commit together, or neither does.
        await finish(tx, result);
        return result;
      });
    } catch (err) {
      await deps.storage.delete(key).catch(() => undefined);
      if (err instanceof DomainError) throw new JobFailure(err.message);
      throw err;
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
