// The images one page draws, as pixels at the size the page draws them. Skia would decode a
// photo whole (a 12000×12000 PNG of 17 KB cost 550 MB); sharp decodes it here instead,
// shrinking as it reads, on libuv's threads, so a render thread is handed only the pixels the
// canvas can show. Pages are loaded one at a time, so a carousel holds one page's images.
// The scaled pixels are written to files that the render thread reads: they never pass
// through this event loop's heap.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import type { ImageFile } from '../../render/canvas.ts';
import { RenderTimedOut } from '../../render/renderPool.ts';
import { MAX_CHUNKED_BYTES, MAX_IMAGE_PIXELS } from '../assets/schema.ts';
import { spoolToTemp, storedVisuals } from '../assets/service.ts';
import type { Pool } from '../db/pool.ts';
import { workFolder } from '../media/workFolders.ts';
import type { Storage } from '../storage/storage.ts';
import type { Layer } from './layout.ts';

export type Size = { width: number; height: number };
type ImageLayer = Extract<Layer, { kind: 'image' }>;

/**
 * The pixels a page's images may hold together once decoded (4 bytes each: 32 MB), four
 * times a story page's 2 megapixels: only a page of many large, overlapping or zoomed-in
 * images reaches it, and its images are then drawn from proportionally smaller copies.
 */
export const PAGE_IMAGE_PIXELS = 8_000_000;

/** Canvas pixels per source pixel where a layer draws its image (see drawImage in render/canvas.ts). */
function drawScale(l: ImageLayer, source: Size): number {
  const crop = l.crop ?? { x: 0, y: 0, w: 1, h: 1 };
  const sw = Math.min(crop.w, 1 - crop.x) * source.width;
  const sh = Math.min(crop.h, 1 - crop.y) * source.height;
  if (sw <= 0 || sh <= 0) return 0;
  // Cover fills the frame (the larger scale), contain fits inside it (the smaller).
  const [x, y] = [l.w / sw, l.h / sh];
  return l.fit === 'cover' ? Math.max(x, y) : Math.min(x, y);
}

/** Whether a layer draws an image: one faded out or without area reads and draws nothing. */
export const showsImage = (l: Layer): l is ImageLayer =>
  l.kind === 'image' && l.opacity > 0 && l.w > 0 && l.h > 0;

/**
 * The size each image of a page is decoded at: as large as its largest drawing on the page
 * needs, never larger than the source, then all of them shrunk alike if together they would
 * hold more than PAGE_IMAGE_PIXELS. Images the page does not draw are left out.
 */
export function drawnSizes(layers: Layer[], sources: ReadonlyMap<string, Size>): Map<string, Size> {
  const scales = new Map<string, number>();
  for (const l of layers) {
    const source = showsImage(l) ? sources.get(imageKey(l)) : undefined;
    if (l.kind !== 'image' || !source) continue;
    const key = imageKey(l);
    scales.set(key, Math.max(scales.get(key) ?? 0, drawScale(l, source)));
  }
  const sizes = new Map<string, Size>();
  let total = 0;
  for (const [id, scale] of scales) {
    const source = sources.get(id)!;
    const k = Math.min(1, scale);
    const size = {
      width: Math.max(1, Math.ceil(source.width * k)),
      height: Math.max(1, Math.ceil(source.height * k)),
    };
    sizes.set(id, size);
    total += size.width * size.height;
  }
  if (total > PAGE_IMAGE_PIXELS) {
    const f = Math.sqrt(PAGE_IMAGE_PIXELS / total);
    for (const [id, s] of sizes)
      sizes.set(id, {
        width: Math.max(1, Math.floor(s.width * f)),
        height: Math.max(1, Math.floor(s.height * f)),
      });
  }
  return sizes;
}

/** Larger than any stored image: uploads stop at 15 MB, rendered pages are smaller. */
const IMAGE_FILE_BYTES = 64 * 1024 * 1024;
const DECODED_BUDGET_BYTES = 256 * 1024 * 1024;
const SOURCE_SIZES_KEPT = 10_000;

/** A scaled image in the cache, held while a page being drawn uses it. */
type Decoded = ImageFile & Size & { bytes: number; users: number };

/**
 * Scaled photos from earlier renders, least recently used first, as uncompressed PNG files
 * that a render thread reads itself: the pixels never pass through this event loop's heap (a
 * page's pixels held there cost 50-140 ms garbage-collection pauses). A design is rendered
 * again after every edit, mostly with the same photos: a hit skips reading and decoding them.
 * The key holds the storage key and the size drawn at; an asset's bytes never change under
 * its key (every upload gets a new one), so a hit is always the asset's current bytes;
 * ownership is still checked by the query on every render. Bounded by decoded size (4 bytes
 * a pixel); the oldest go first, never one a page being drawn uses. A cache belongs to whoever
 * owns the render pool (the worker), made and closed with it: two workers in one process, or
 * two tests, never share its files.
 */
export type PageImageCache = {
  /** An image's size as drawn (EXIF orientation applied), if learnt before. */
  sourceSize: (key: string) => Size | undefined;
  learnSourceSize: (key: string, size: Size) => void;
  /** The scaled image under `key`, held for a page until released. */
  hold: (key: string) => Decoded | undefined;
  /** A new file name for a scaled image, in the cache's own directory. */
  newFile: () => Promise<string>;
  /** Files a scaled image and holds it; should another page have filed it meanwhile, that one. */
  keep: (key: string, scaled: Size, file: string) => Promise<Decoded>;
  /** Lets go of a page's images, then drops the oldest unused files until the budget holds. */
  release: (held: Decoded[]) => Promise<void>;
  /** The decoded files held now. */
  files: () => string[];
  /** Removes every decoded file (a worker stopping; an exit handler covers a plain exit). */
  close: () => Promise<void>;
};

export function createPageImageCache(opts: { budgetBytes?: number } = {}): PageImageCache {
  const budget = opts.budgetBytes ?? DECODED_BUDGET_BYTES;
  const decoded = new Map<string, Decoded>();
  let decodedBytes = 0;
  let dir: Promise<string> | undefined;
  let removeOnExit: (() => void) | undefined;
  const sourceSizes = new Map<string, Size>();

  return {
    sourceSize: (key) => sourceSizes.get(key),
    learnSourceSize: (key, size) => {
      sourceSizes.set(key, size);
      if (sourceSizes.size > SOURCE_SIZES_KEPT)
        sourceSizes.delete(sourceSizes.keys().next().value!);
    },
    hold: (key) => {
      const entry = decoded.get(key);
      if (!entry) return undefined;
      decoded.delete(key);
      decoded.set(key, entry);
      entry.users++;
      return entry;
    },
    newFile: async () => {
      dir ??= workFolder('render').then((made) => {
        removeOnExit = () => rmSync(made, { recursive: true, force: true });
        process.once('exit', removeOnExit);
        return made;
      });
      return path.join(await dir, `${randomUUID()}.png`);
    },
    keep: async (key, scaled, file) => {
      let entry = decoded.get(key);
      if (entry) await rm(file, { force: true });
      else {
        entry = { ...scaled, file, bytes: scaled.width * scaled.height * 4, users: 0 };
        decoded.set(key, entry);
        decodedBytes += entry.bytes;
      }
      entry.users++;
      return entry;
    },
    release: async (held) => {
      for (const entry of held) entry.users--;
      for (const [key, entry] of decoded) {
        if (decodedBytes <= budget) break;
        if (entry.users) continue;
        decoded.delete(key);
        decodedBytes -= entry.bytes;
        await rm(entry.file, { force: true });
      }
    },
    files: () => [...decoded.values()].map((d) => d.file),
    close: async () => {
      const made = await dir?.catch(() => undefined);
      dir = undefined;
      decoded.clear();
      decodedBytes = 0;
      sourceSizes.clear();
      if (removeOnExit) process.off('exit', removeOnExit);
      removeOnExit = undefined;
      if (made) await rm(made, { recursive: true, force: true });
    },
  };
}

/**
 * Renders decode one image at a time, so they hold one of libuv's four threads and leave the
 * rest to the API beside them (file reads and writes, DNS, upload checks). This queue stays
 * the process's, unlike the cache: it holds no data, and libuv's threads are the process's,
 * so two workers in one process must take turns on the same queue.
 */
let decoding: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = decoding.then(work);
  decoding = run.catch(() => undefined);
  return run;
}

/**
 * The image in `file` scaled to `size` and written to `out` as a PNG that is quick to write
 * and read (no compression), oriented as its EXIF says (as a browser shows it). sharp reads
 * and writes the files itself, off the event loop.
 */
export async function scaledImage(file: string, size: Size, out: string): Promise<Size> {
  const info = await oneAtATime(() =>
    sharp(file, { limitInputPixels: MAX_IMAGE_PIXELS })
      .autoOrient()
      .resize(size.width, size.height, { fit: 'fill' })
      .png({ compressionLevel: 0, adaptiveFiltering: false })
      .toFile(out),
  );
  return { width: info.width, height: info.height };
}

async function orientedSize(file: string): Promise<Size> {
  const meta = await sharp(file).metadata();
  return meta.autoOrient ?? { width: meta.width, height: meta.height };
}

/**
 * The key an image layer's pixels go by: its asset, or for a video's frame the asset and the
 * second (the images a page is handed, and the cache, are keyed by it).
 */
export const imageKey = (l: Pick<ImageLayer, 'asset_id' | 'frame_s'>) =>
  l.frame_s === undefined ? l.asset_id : `${l.asset_id}@${l.frame_s}`;

const frameSecondOf = (key: string) => {
  const at = key.indexOf('@');
  return at < 0 ? undefined : Number(key.slice(at + 1));
};

/** An image key as a refusal names it: the image asset, or the video asset and second. */
function sourceName(key: string) {
  const second = frameSecondOf(key);
  return second === undefined
    ? `image asset ${key}`
    : `video asset ${key.slice(0, key.indexOf('@'))} at ${second} s`;
}

/**
 * The storage keys of the images the layers draw that their account owns, by image key: an
 * image asset, or a video asset where a layer shows one of its frames.
 */
export async function ownedImages(
  pool: Pool,
  accountId: string,
  layers: Layer[],
): Promise<Map<string, string>> {
  const images = layers.filter((l) => l.kind === 'image');
  if (!images.length) return new Map();
  const rows = await storedVisuals(
    pool,
    accountId,
    images.map((l) => l.asset_id),
  );
  const owned = new Map<string, string>();
  for (const l of images) {
    const row = rows.find((r) => r.id === l.asset_id);
    if (row?.kind === (l.frame_s === undefined ? 'image' : 'video'))
      owned.set(imageKey(l), row.storage_key);
  }
  return owned;
}

/** Videos read for their frames, by storage key: a render job's, kept across its pages. */
export type VideoFiles = Map<string, Promise<string>>;

/** Removes the video files read for frames. */
export async function dropVideoFiles(videos: VideoFiles): Promise<void> {
  for (const video of videos.values()) {
    const file = await video.catch(() => undefined);
    if (file) await rm(file, { force: true });
  }
  videos.clear();
}

/**
 * Extracts a video's frame at `atS` into `out` (a PNG) within `timeoutMs`, e.g. with ffmpeg
 * (core/media/frame.ts).
 */
export type FrameGrabber = (
  video: string,
  atS: number,
  out: string,
  timeoutMs: number,
) => Promise<void>;

/** The time one page may take, reading and scaling its images and drawing them together. */
export type PageDeadline = {
  /** The page's whole limit (RENDER_TIMEOUT_MS), as refusals name it. */
  timeoutMs: number;
  /** Whole milliseconds left, 0 once past. */
  left: () => number;
  /** Throws RenderTimedOut once the time is up. */
  check: () => void;
};

export function pageDeadline(timeoutMs: number): PageDeadline {
  const ends = performance.now() + timeoutMs;
  const left = () => Math.max(0, Math.ceil(ends - performance.now()));
  return {
    timeoutMs,
    left,
    check: () => {
      if (left() <= 0) throw new RenderTimedOut(timeoutMs);
    },
  };
}

/**
 * The stored bytes under `key` in a local file, given up (RenderTimedOut) when the page's time
 * runs out first: a storage read that stalls (an S3 endpoint that stops answering) must not
 * hold a render slot forever.
 */
async function readWithin(
  storage: Storage,
  key: string,
  deadline: PageDeadline,
  maxBytes = IMAGE_FILE_BYTES,
) {
  deadline.check();
  const signal = AbortSignal.timeout(deadline.left());
  const timedOut = () => new RenderTimedOut(deadline.timeoutMs);
  const opened = storage.get(key);
  const stream = await new Promise<Readable>((resolve, reject) => {
    const stop = () => reject(timedOut());
    signal.addEventListener('abort', stop, { once: true });
    opened.then(
      (s) => {
        signal.removeEventListener('abort', stop);
        // Opened too late: nobody reads it.
        if (signal.aborted) s.destroy();
        else resolve(s);
      },
      (err) => {
        signal.removeEventListener('abort', stop);
        reject(err);
      },
    );
  });
  const stall = () => stream.destroy(timedOut());
  signal.addEventListener('abort', stall, { once: true });
  try {
    return (await spoolToTemp(stream, maxBytes, 'too large')).file;
  } finally {
    signal.removeEventListener('abort', stall);
  }
}

/**
 * Runs `use` with the images one page draws, by asset id, each a file at the size it is
 * drawn; the files stay until `use` settles. Reading and scaling share the page's deadline
 * with drawing: no image is read or scaled once it has passed, and a read in progress is
 * given up (RenderTimedOut), so a page of many large images, or a stalled storage read, is
 * stopped like a page that draws too long.
 */
export async function withPageImages<T>(
  cache: PageImageCache,
  storage: Storage,
  owned: ReadonlyMap<string, string>,
  layers: Layer[],
  deadline: PageDeadline,
  use: (images: Map<string, ImageFile & Size>) => Promise<T>,
  grabFrame?: FrameGrabber,
  jobVideos?: VideoFiles,
): Promise<T> {
  const ids = new Set(layers.flatMap((l) => (showsImage(l) ? [imageKey(l)] : [])));
  // Each image read is copied to a local file, read by sharp off the event loop (a stream
  // given to sharp is gathered into one buffer on it), and removed when the page is loaded.
  const files = new Map<string, string>();
  // A video is read once for all the frames a page shows of it (for all of a render's pages,
  // with the job's own VideoFiles), and let go with the page (or the job).
  const videos = jobVideos ?? new Map<string, Promise<string>>();
  const frameOf = async (storageKey: string, second: number) => {
    if (!grabFrame) throw new Error('video frames cannot be drawn here');
    let video = videos.get(storageKey);
    if (!video) {
      video = readWithin(storage, storageKey, deadline, MAX_CHUNKED_BYTES);
      videos.set(storageKey, video);
    }
    const file = `${await video}-${second}.png`;
    deadline.check();
    try {
      await grabFrame(await video, second, file, deadline.left());
    } catch (err) {
      await rm(file, { force: true });
      throw err;
    }
    return file;
  };
  const fileOf = async (id: string, storageKey: string) => {
    let file = files.get(id);
    if (!file) {
      const second = frameSecondOf(id);
      file =
        second === undefined
          ? await readWithin(storage, storageKey, deadline)
          : await frameOf(storageKey, second);
      files.set(id, file);
    }
    return file;
  };
  const clearFiles = async () => {
    for (const file of files.values()) await rm(file, { force: true });
    files.clear();
    if (!jobVideos) await dropVideoFiles(videos);
  };
  const unreadable = (id: string, what: string) => (err: Error) => {
    if (err instanceof RenderTimedOut) throw err;
    throw new Error(`${sourceName(id)} cannot be ${what}: ${err.message}`);
  };
  try {
    const sources = new Map<string, Size>();
    for (const id of ids) {
      const storageKey = owned.get(id);
      if (!storageKey) continue;
      const key = `${id}:${storageKey}`;
      let size = cache.sourceSize(key);
      if (!size) {
        size = await fileOf(id, storageKey).then(orientedSize).catch(unreadable(id, 'read'));
        cache.learnSourceSize(key, size);
      }
      sources.set(id, size);
    }
    const images = new Map<string, ImageFile & Size>();
    const held: Decoded[] = [];
    try {
      for (const [id, size] of drawnSizes(layers, sources)) {
        const storageKey = owned.get(id)!;
        const key = `${id}:${storageKey}:${size.width}x${size.height}`;
        let entry = cache.hold(key);
        if (!entry) {
          const file = await fileOf(id, storageKey).catch(unreadable(id, 'read'));
          deadline.check();
          const out = await cache.newFile();
          const scaled = await scaledImage(file, size, out).catch(async (err: Error) => {
            await rm(out, { force: true });
            throw new Error(`${sourceName(id)} cannot be drawn: ${err.message}`);
          });
          entry = await cache.keep(key, scaled, out);
        }
        held.push(entry);
        images.set(id, { width: entry.width, height: entry.height, file: entry.file });
      }
      await clearFiles();
      deadline.check();
      return await use(images);
    } finally {
      await cache.release(held);
    }
  } finally {
    await clearFiles();
  }
}

/** The focal points found, by scaled file and frame shape: a design re-renders with the same photo. */
const focusFound = new Map<string, { x: number; y: number }>();
const FOCUS_KEPT = 2_000;

/**
 * Where sharp's attention strategy (the most salient part: skin, saturation, edges) finds the
 * subject of an image for a frame of `frame`'s shape, as fractions of the image. It reads the
 * scaled copy the page draws (at most PAGE_IMAGE_PIXELS) and judges it shrunk to 400 pixels
 * across, one sharp operation at a time like every other of a render's.
 */
export async function attentionFocus(
  image: ImageFile & Size,
  frame: { w: number; h: number },
): Promise<{ x: number; y: number }> {
  const key = `${image.file}:${(frame.w / frame.h).toFixed(3)}`;
  const known = focusFound.get(key);
  if (known) return known;
  const k = 400 / Math.max(frame.w, frame.h);
  const [w, h] = [Math.max(1, Math.round(frame.w * k)), Math.max(1, Math.round(frame.h * k))];
  const { info } = await oneAtATime(() =>
    sharp(image.file)
      .resize(w, h, { fit: 'cover', position: sharp.strategy.attention })
      .toBuffer({ resolveWithObject: true }),
  );
  // The point is in the image scaled to cover the frame, before the crop.
  const scale = Math.max(w / image.width, h / image.height);
  const at = {
    x: Math.min(
      1,
      Math.max(0, (info.attentionX ?? (image.width * scale) / 2) / (image.width * scale)),
    ),
    y: Math.min(
      1,
      Math.max(0, (info.attentionY ?? (image.height * scale) / 2) / (image.height * scale)),
    ),
  };
  if (focusFound.size >= FOCUS_KEPT) focusFound.clear();
  focusFound.set(key, at);
  return at;
}

/**
 * The page's layers as the renderer draws them: every image named by its image key, and
 * every focus "auto" replaced by the point attention finds.
 */
export async function withFocusFound(
  layers: Layer[],
  images: ReadonlyMap<string, ImageFile & Size>,
): Promise<Layer[]> {
  const resolved: Layer[] = [];
  for (const l of layers) {
    const image = l.kind === 'image' ? images.get(imageKey(l)) : undefined;
    if (l.kind !== 'image' || !image) {
      resolved.push(l);
      continue;
    }
    // The renderer finds a frame's pixels by its image key.
    const drawn = { ...l, asset_id: imageKey(l) };
    if (l.focus !== 'auto' || l.fit !== 'cover' || l.crop || l.w <= 0 || l.h <= 0)
      resolved.push(drawn);
    else resolved.push({ ...drawn, focus: await attentionFocus(image, l) });
  }
  return resolved;
}
