// The render_design job: renders every page of one layout version in a render thread
// (render/renderPool.ts), one page at a time with only that page's images, stores
// the PNGs as the design's page assets, and attaches them to the design's unpublished posts,
// then announces the outcome (NOTIFY design_rendered) to an API waiting on it. A job for a
// version that is no longer current does nothing: a newer job renders the newer layout.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { RenderWarning as DrawnWarning, ImageFile, RenderedPng } from '../../render/canvas.ts';
import type { Drawing } from '../../render/drawing.ts';
import { RenderOutOfMemory, type RenderPool, RenderTimedOut } from '../../render/renderPool.ts';
import { fileDesignPages } from '../assets/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { drawingsToRender } from '../drawings/service.ts';
import type { RenderDesignPayload as RenderJob } from '../jobs/tasks.ts';
import { DomainError } from '../kernel/errors.ts';
import { frameGrabber } from '../media/frame.ts';
import type { MediaTools } from '../media/tools.ts';
import { attachDesignPages, detachDesignPages } from '../posts/service.ts';
import { deleteQuietly, type Storage } from '../storage/storage.ts';
import { designById, markRendered, recordRenderError } from './db.ts';
import { ASPECTS, type Page, pagesOf } from './layout.ts';
import {
  dropVideoFiles,
  ownedImages,
  type PageImageCache,
  pageDeadline,
  type Size,
  type VideoFiles,
  withFocusFound,
  withPageImages,
} from './pageImages.ts';
import { RENDERED_CHANNEL } from './renderWaits.ts';
import type { RenderWarning } from './schema.ts';

const notify = (db: Pick<Pool, 'query'>, job: RenderJob) =>
  db.query('select pg_notify($1, $2)', [
    RENDERED_CHANNEL,
    `${job.design_id}:${job.layout_version}`,
  ]);

/** A message without the server's file paths (a storage error names the file it missed). */
const withoutPaths = (message: string) =>
  message
    .replace(/ENOENT: no such file or directory, \w+ '[^']*'/g, 'the file is no longer stored')
    .replace(/(?:\/[\w.@-]+){2,}/g, '<file>');

/** Records why a render failed, drops its files and wakes the API waiting on it. */
async function failed(
  deps: Pick<RenderDeps, 'pool' | 'storage'>,
  job: RenderJob,
  stored: { key: string }[],
  err: unknown,
) {
  await deleteQuietly(
    deps.storage,
    stored.map((s) => s.key),
  );
  await recordRenderError(
    deps.pool,
    job.design_id,
    job.layout_version,
    `Rendering failed: ${withoutPaths((err as Error).message)}`,
  );
  await notify(deps.pool, job);
}

/** Why a page could not be drawn, with what to change when the layout is the cause. */
function whyNot(err: unknown, page: number, pages: number): Error {
  const which = pages > 1 ? `page ${page + 1}` : 'the page';
  const change = 'use fewer or shorter text layers, or fewer images or video frames, on it';
  if (err instanceof RenderTimedOut)
    return new Error(
      `${which} took longer than ${err.timeoutMs / 1000} s to draw and was stopped; ${change}`,
    );
  if (err instanceof RenderOutOfMemory)
    return new Error(`${which} needed more memory than a render may use; ${change}`);
  return err as Error;
}

/** The warnings a render keeps: a layout of 3,200 overflowing layers says so 50 times. */
const MAX_WARNINGS = 50;

/** A page's warning as the design answers it (`page` 0-based), with what to do about it. */
function pageWarning(w: DrawnWarning, page: number, drawn: Page): RenderWarning {
  const layer = drawn.layers.find((l) => l.cid === w.cid);
  const name = layer?.slot ? `the ${layer.slot} text` : `text layer ${w.cid}`;
  const shrink = layer?.kind === 'text' && layer.fit === 'shrink';
  if (w.code === 'image_missing') {
    const asset =
      layer?.kind === 'image'
        ? ` (asset ${layer.asset_id})`
        : layer?.kind === 'drawing'
          ? ` (drawing ${layer.drawing_id})`
          : '';
    const which = layer?.slot ? `the ${layer.slot} slot` : `layer ${w.cid}`;
    return {
      code: w.code,
      cid: w.cid,
      page,
      message: `the image of ${which}${asset} is no longer stored: it was left out. Give another image.`,
    };
  }
  const message =
    w.code === 'word_broken'
      ? `${name} has a word wider than its frame even at its min_size: it was broken across lines. Shorten the word, or widen the frame.`
      : `${name} does not fit its frame${shrink ? ' even at its min_size' : ''}: lines that did not fit were left out. Shorten it, enlarge its frame${shrink ? ', or lower its min_size' : ', or set fit to "shrink"'}.`;
  return { code: w.code, cid: w.cid, page, message };
}

export type RenderDeps = {
  pool: Pool;
  storage: Storage;
  renderer: RenderPool;
  /** The scaled images of earlier pages; made and closed with `renderer`. */
  images: PageImageCache;
  /** ffmpeg, for image layers that show a video's frame (`frame_s`); without it, refused. */
  tools?: MediaTools;
};

/**
 * One page: its images read and scaled, then drawn in a render thread, all within the one
 * time limit (RENDER_TIMEOUT_MS); drawing gets what loading left of it. A page waiting for a
 * free thread is not drawing: that wait does not count (render/renderPool.ts).
 */
export async function drawPage(
  deps: RenderDeps,
  owned: ReadonlyMap<string, string>,
  page: Page,
  canvas: {
    width: number;
    height: number;
    bg: string;
    cut?: boolean;
    /** The drawings the page's drawing layers name, by id. */
    drawings?: ReadonlyMap<string, Drawing>;
  },
  videos?: VideoFiles,
): Promise<RenderedPng> {
  const deadline = pageDeadline(deps.renderer.timeoutMs);
  const draw = async (images: Map<string, ImageFile & Size>) => {
    const layers = await withFocusFound(page.layers, images);
    const input = { ...canvas, layers, images };
    const drawn = await deps.renderer.render(input, { timeoutMs: deadline.left() }).catch((err) => {
      // Named by the page's whole limit, not by what was left of it.
      throw err instanceof RenderTimedOut ? new RenderTimedOut(deadline.timeoutMs) : err;
    });
    return { png: drawn.png, box: drawn.box, warnings: drawn.warnings };
  };
  return withPageImages(
    deps.images,
    deps.storage,
    owned,
    page.layers,
    deadline,
    draw,
    deps.tools && frameGrabber(deps.tools),
    videos,
  );
}

export async function renderDesignJob(deps: RenderDeps, job: RenderJob) {
  const { pool, storage } = deps;
  const design = await designById(pool, job.design_id);
  if (!design || design.layout_version !== job.layout_version) return 'stale';

  const size = ASPECTS[design.layout.canvas.aspect];
  const stored: { key: string; bytes: number }[] = [];
  const warnings: RenderWarning[] = [];
  // Videos this render shows frames of, read once for all its pages.
  const videos: VideoFiles = new Map();
  try {
    const pages = pagesOf(design.layout);
    const owned = await ownedImages(
      pool,
      design.account_id,
      pages.flatMap((p) => p.layers),
    );
    const drawings = await drawingsToRender(
      pool,
      design.account_id,
      pages.flatMap((p) => p.layers.flatMap((l) => (l.kind === 'drawing' ? [l.drawing_id] : []))),
    );
    for (const [n, page] of pages.entries()) {
      const { png, warnings: drawn } = await drawPage(
        deps,
        owned,
        page,
        { ...size, bg: page.bg ?? design.layout.canvas.bg, drawings },
        videos,
      ).catch((err) => {
        throw whyNot(err, n, pages.length);
      });
      for (const w of drawn)
        if (warnings.length < MAX_WARNINGS) warnings.push(pageWarning(w, n, page));
      const key = `renders/${design.account_id}/${randomUUID()}.png`;
      await storage.put(key, Readable.from([png]));
      stored.push({ key, bytes: png.length });
    }
  } catch (err) {
    await failed(deps, job, stored, err);
    return 'failed';
  } finally {
    await dropVideoFiles(videos);
  }

  const replaced = await withTransaction(pool, async (tx) => {
    if (!(await markRendered(tx, job.design_id, job.layout_version, warnings))) return undefined;
    // The design's posts that are not published (or being published) show the new pages:
    // detached first, so the old pages any other post still shows are kept, not deleted.
    await detachDesignPages(tx, job.design_id);
    const { pageIds, freedKeys } = await fileDesignPages(
      tx,
      { id: design.id, accountId: design.account_id, brandId: design.brand_id },
      size,
      stored,
    );
    await attachDesignPages(tx, job.design_id, pageIds);
    await notify(tx, job);
    return freedKeys;
  }).catch(async (err) => {
    // Recorded for the waiting API. A refusal (the quota) is final; anything else is thrown
    // so the job is tried once more.
    await failed(deps, job, stored, err);
    if (err instanceof DomainError) return 'refused' as const;
    throw err;
  });
  if (replaced === 'refused') return 'failed';
  if (!replaced) {
    await deleteQuietly(
      storage,
      stored.map((s) => s.key),
    );
    return 'stale';
  }
  await deleteQuietly(storage, replaced);
  return 'rendered';
}
