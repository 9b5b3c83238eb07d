// The images one page draws, as pixels at the size the page draws them. Skia would decode a
// photo whole (a 12000×12000 PNG of 17 KB cost 550 MB); sharp decodes it here instead,
// shrinking as it reads, on libuv's threads, so a render thread is handed only the pixels the
// canvas can show. Pages are loaded one at a time, so a carousel holds one page's images.
// The scaled pixels are written to files that the render thread reads: they never pass
// through this event loop's heap.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { ImageFile } from '../../render/canvas.ts';
import { RenderTimedOut } from '../../render/renderPool.ts';
import { imageStorageKeys } from '../assets/db.ts';
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
 * Scaled photos from earlier renders in this process, least recently used first, as
 * uncompressed PNG files that a render thread reads itself: the pixels never pass through
 * this event loop's heap (a page's pixels held there cost 50-140 ms garbage-collection
 * pauses). A design
 * is rendered again after every edit, mostly with the same photos: a hit skips reading and
 * decoding them. The key holds the storage key and the size drawn at; an asset's bytes never
 * change under its key (every upload gets a new one), so a hit is always the asset's current
 * bytes; ownership is still checked by the query on every render. Bounded by decoded size
 * (4 bytes a pixel); the oldest go first, never one a page being drawn uses.
 */
const DECODED_BUDGET_BYTES = 256 * 1024 * 1024;
type Decoded = ImageFile & Size & { bytes: number; users: number };
const decoded = new Map<string, Decoded>();
let decodedBytes = 0;
let decodedDir: string | undefined;

/** Each stored image's size as drawn (EXIF orientation applied), learnt once per process. */
const sourceSizes = new Map<string, Size>();
const SOURCE_SIZES_KEPT = 10_000;

/** Larger than any stored image: uploads stop at 15 MB, rendered pages are smaller. */
const IMAGE_FILE_BYTES = 64 * 1024 * 1024;

async function newDecodedFile(): Promise<string> {
  if (!decodedDir) {
    decodedDir = await mkdtemp(path.join(os.tmpdir(), 'sps-render-'));
    const dir = decodedDir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return path.join(decodedDir, `${randomUUID()}.png`);
}

/** Removes every decoded file (a worker stopping; the exit handler covers a plain exit). */
export async function forgetDecodedImages(): Promise<void> {
  const dir = decodedDir;
  decodedDir = undefined;
  decoded.clear();
  decodedBytes = 0;
  if (dir) await rm(dir, { recursive: true, force: true });
}

/** Drops the oldest unused files until the budget holds. */
async function trim() {
  for (const [key, entry] of decoded) {
    if (decodedBytes <= DECODED_BUDGET_BYTES) break;
    if (entry.users) continue;
    decoded.delete(key);
    decodedBytes -= entry.bytes;
    await rm(entry.file, { force: true });
  }
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

/** The storage keys of a design's images that its account owns, by asset id. */
export async function ownedImages(
  pool: Pool,
  accountId: string,
  ids: string[],
): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await imageStorageKeys(pool, accountId, ids);
  return new Map(rows.map((r) => [r.id, r.storage_key]));
}

/**
 * Runs `use` with the images one page draws, by asset id, each a file at the size it is
 * drawn; the files stay until `use` settles. No new image is read or decoded once
 * `timeoutMs` have passed (RenderTimedOut): a page of many large images is stopped like a
 * page that draws too long.
 */
export async function withPageImages<T>(
  storage: Storage,
  owned: ReadonlyMap<string, string>,
  layers: Layer[],
  timeoutMs: number,
  use: (images: Map<string, ImageFile & Size>) => Promise<T>,
): Promise<T> {
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
  const clearFiles = async () => {
    for (const file of files.values()) await rm(file, { force: true });
    files.clear();
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
    const images = new Map<string, ImageFile & Size>();
    const held: Decoded[] = [];
    try {
      for (const [id, size] of drawnSizes(layers, sources)) {
        const storageKey = owned.get(id)!;
        const key = `${id}:${storageKey}:${size.width}x${size.height}`;
        let entry = decoded.get(key);
        if (entry) {
          decoded.delete(key);
          decoded.set(key, entry);
        } else {
          inTime();
          const out = await newDecodedFile();
          const scaled = await scaledImage(await fileOf(id, storageKey), size, out).catch(
            async (err: Error) => {
              await rm(out, { force: true });
              throw new Error(`image asset ${id} cannot be drawn: ${err.message}`);
            },
          );
          // Another render may have decoded the same image meanwhile: keep one.
          const other = decoded.get(key);
          if (other) {
            await rm(out, { force: true });
            entry = other;
          } else {
            entry = { ...scaled, file: out, bytes: scaled.width * scaled.height * 4, users: 0 };
            decoded.set(key, entry);
            decodedBytes += entry.bytes;
          }
        }
        entry.users++;
        held.push(entry);
        images.set(id, { width: entry.width, height: entry.height, file: entry.file });
      }
      await clearFiles();
      return await use(images);
    } finally {
      for (const entry of held) entry.users--;
      await trim();
    }
  } finally {
    await clearFiles();
  }
}
