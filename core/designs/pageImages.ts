// The images one page draws, as pixels at the size the page draws them. Skia would decode a
// photo whole (a 12000×12000 PNG of 17 KB cost 550 MB); sharp decodes it here instead,
// shrinking as it reads, on libuv's threads, so a render thread is handed only the pixels the
// canvas can show. Pages are loaded one at a time, so a carousel holds one page's images.
// Pixels live in shared memory: a render thread reads them where they are, and the event
// loop never copies a page's worth of pixels to hand them over.
import { rm } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import sharp from 'sharp';
import type { Pixels } from '../../render/canvas.ts';
import { RenderTimedOut } from '../../render/renderPool.ts';
import { MAX_IMAGE_PIXELS } from '../assets/schema.ts';
import { spoolToTemp } from '../assets/spool.ts';
import type { Pool } from '../db/pool.ts';
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

/**
 * The size each image of a page is decoded at: as large as its largest drawing on the page
 * needs, never larger than the source, then all of them shrunk alike if together they would
 * hold more than PAGE_IMAGE_PIXELS. Images the page does not draw are left out.
 */
export function drawnSizes(layers: Layer[], sources: ReadonlyMap<string, Size>): Map<string, Size> {
  const scales = new Map<string, number>();
  for (const l of layers) {
    const source = l.kind === 'image' && l.opacity > 0 ? sources.get(l.asset_id) : undefined;
    if (l.kind !== 'image' || !source) continue;
    scales.set(l.asset_id, Math.max(scales.get(l.asset_id) ?? 0, drawScale(l, source)));
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

/**
 * Scaled photos from earlier renders in this process, least recently used first. A design is
 * rendered again after every edit, mostly with the same photos: a hit skips reading and
 * decoding them. The key holds the storage key and the size drawn at; an asset's bytes never
 * change under its key (every upload gets a new one), so a hit is always the asset's current
 * bytes; ownership is still checked by the query on every render. Bounded by decoded size
 * (4 bytes a pixel): a page's worth of photos fits, and the oldest go first.
 */
const DECODED_BUDGET_BYTES = 64 * 1024 * 1024;
const decoded = new Map<string, Pixels>();
let decodedBytes = 0;

/** Each stored image's size as drawn (EXIF orientation applied), learnt once per process. */
const sourceSizes = new Map<string, Size>();
const SOURCE_SIZES_KEPT = 10_000;

/** Larger than any stored image: uploads stop at 15 MB, rendered pages are smaller. */
const IMAGE_FILE_BYTES = 64 * 1024 * 1024;

function remember(key: string, pixels: Pixels) {
  const bytes = pixels.data.byteLength;
  if (bytes > DECODED_BUDGET_BYTES || decoded.has(key)) return;
  decoded.set(key, pixels);
  decodedBytes += bytes;
  for (const [oldest, entry] of decoded) {
    if (decodedBytes <= DECODED_BUDGET_BYTES) break;
    decoded.delete(oldest);
    decodedBytes -= entry.data.byteLength;
  }
}

function recall(key: string): Pixels | undefined {
  const hit = decoded.get(key);
  if (hit) {
    decoded.delete(key);
    decoded.set(key, hit);
  }
  return hit;
}

/**
 * Renders decode one image at a time, so they hold one of libuv's four threads and leave the
 * rest to the API beside them (file reads and writes, DNS, upload checks).
 */
let decoding: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = decoding.then(work);
  decoding = run.catch(() => undefined);
  return run;
}

/**
 * Bytes copied into shared memory between two turns of the event loop. Fresh memory is slow
 * to touch the first time (32 MB took 110 ms on a 2-core VM): copied whole, a page's pixels
 * would hold up every request for that long.
 */
const SLICE_BYTES = 256 * 1024;

async function inSharedMemory(data: Buffer): Promise<Uint8Array> {
  const shared = new Uint8Array(new SharedArrayBuffer(data.byteLength));
  const into = Buffer.from(shared.buffer);
  for (let at = 0; at < data.byteLength; at += SLICE_BYTES) {
    data.copy(into, at, at, Math.min(data.byteLength, at + SLICE_BYTES));
    await setImmediate();
  }
  return shared;
}

/**
 * The image in `file` as RGBA pixels of `size`, oriented as its EXIF says (as a browser
 * shows it). sharp reads the file itself, off the event loop.
 */
export async function scaledPixels(file: string, size: Size): Promise<Pixels> {
  const { data, info } = await oneAtATime(() =>
    sharp(file, { limitInputPixels: MAX_IMAGE_PIXELS })
      .autoOrient()
      .resize(size.width, size.height, { fit: 'fill' })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true }),
  );
  return { width: info.width, height: info.height, data: await inSharedMemory(data) };
}

async function orientedSize(file: string): Promise<Size> {
  const meta = await sharp(file).metadata();
  return meta.autoOrient ?? { width: meta.width, height: meta.height };
}

/** The storage keys of a design's images that its account owns, by asset id. */
export async function ownedImages(
  pool: Pool,
  accountId: string,
  ids: string[],
): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const { rows } = await pool.query<{ id: string; storage_key: string }>(
    `select id::text, storage_key from assets
     where account_id = $1 and kind = 'image' and id = any($2::bigint[]) and storage_key is not null`,
    [accountId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.storage_key]));
}

/**
 * The pixels of the images one page draws, by asset id, each at the size it is drawn. No new
 * image is read or decoded once `timeoutMs` have passed (RenderTimedOut): a page of many large
 * images is stopped like a page that draws too long.
 */
export async function pageImages(
  storage: Storage,
  owned: ReadonlyMap<string, string>,
  layers: Layer[],
  timeoutMs = Number.POSITIVE_INFINITY,
): Promise<Map<string, Pixels>> {
  const started = performance.now();
  const inTime = () => {
    if (performance.now() - started >= timeoutMs) throw new RenderTimedOut(timeoutMs);
  };
  const ids = new Set(layers.flatMap((l) => (l.kind === 'image' ? [l.asset_id] : [])));
  // Each image read is copied to a local file, read by sharp off the event loop (a stream
  // given to sharp is gathered into one buffer on it), and removed when the page is loaded.
  const files = new Map<string, string>();
  const fileOf = async (id: string, storageKey: string) => {
    let file = files.get(id);
    if (!file) {
      file = (await spoolToTemp(await storage.get(storageKey), IMAGE_FILE_BYTES, 'too large')).file;
      files.set(id, file);
    }
    return file;
  };
  try {
    const sources = new Map<string, Size>();
    for (const id of ids) {
      const storageKey = owned.get(id);
      if (!storageKey) continue;
      const key = `${id}:${storageKey}`;
      let size = sourceSizes.get(key);
      if (!size) {
        inTime();
        size = await orientedSize(await fileOf(id, storageKey)).catch((err: Error) => {
          throw new Error(`image asset ${id} cannot be read: ${err.message}`);
        });
        sourceSizes.set(key, size);
        if (sourceSizes.size > SOURCE_SIZES_KEPT)
          sourceSizes.delete(sourceSizes.keys().next().value!);
      }
      sources.set(id, size);
    }
    const images = new Map<string, Pixels>();
    for (const [id, size] of drawnSizes(layers, sources)) {
      const storageKey = owned.get(id)!;
      const key = `${id}:${storageKey}:${size.width}x${size.height}`;
      let pixels = recall(key);
      if (!pixels) {
        inTime();
        pixels = await scaledPixels(await fileOf(id, storageKey), size).catch((err: Error) => {
          throw new Error(`image asset ${id} cannot be drawn: ${err.message}`);
        });
        remember(key, pixels);
      }
      images.set(id, pixels);
    }
    return images;
  } finally {
    for (const file of files.values()) await rm(file, { force: true });
  }
}
