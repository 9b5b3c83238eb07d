// What bounds a render (SPEC.md "Native layout rules"): a page drawing
// past RENDER_TIMEOUT_MS is stopped with a render_error that says so, and images are decoded
// at the size the page draws them, never whole, a page's images together within a budget.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAsset } from '../../core/assets/db.ts';
import { loadConfig } from '../../core/config.ts';
import { Layer, type LayerInput, Layout } from '../../core/designs/schema.ts';
import {
  createPageImageCache,
  drawnSizes,
  PAGE_IMAGE_PIXELS,
  type PageImageCache,
  pageDeadline,
  renderDesignJob,
  withPageImages,
} from '../../core/designs/service.ts';
import { type Storage, storageFor } from '../../core/storage/storage.ts';
import { type RenderPool, RenderTimedOut } from '../../render/renderPool.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { useDesignService } from '../support/designService.ts';
import { call, makeAccount, makeKey } from '../support/server.ts';

const image = (asset_id: string, frame: Partial<LayerInput> = {}) =>
  Layer.parse({ kind: 'image', asset_id, x: 0, y: 0, w: 540, h: 540, ...frame });

describe('a page past the render time limit', () => {
  const svc = useDesignService({ render: { timeoutMs: 1 } });

  it('is stopped: the draft answers 201 with a render_error saying what to change, and no pages', async () => {
    const acct = await makeAccount(svc.server.pool);
    const key = await makeKey(svc.server.pool, acct.accountId, ['read', 'publish']);
    const res = await call(svc.server, 'POST', '/v1/posts', {
      key,
      body: {
        platform: 'bluesky',
        body: 'Slow page',
        brand_id: acct.brandId,
        layout: { layers: [{ kind: 'text', x: 0, y: 0, w: 500, text: 'Hello' }] },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.render_error).toMatch(
      /the page took longer than 0\.001 s to draw and was stopped; use fewer or shorter text layers/,
    );
    expect(res.body.media_paths).toEqual([]);
    const { rows } = await svc.server.pool.query(
      'select count(*)::int as n from assets where design_id = $1',
      [res.body.design_id],
    );
    expect(rows[0].n).toBe(0);
  });
});

describe('drawnSizes', () => {
  const photo = new Map([['1', { width: 4000, height: 3000 }]]);

  it('shrinks an image larger than its frame to the size the frame draws it at', () => {
    expect(drawnSizes([image('1')], photo).get('1')).toEqual({ width: 720, height: 540 });
    expect(drawnSizes([image('1', { fit: 'contain' })], photo).get('1')).toEqual({
      width: 540,
      height: 405,
    });
  });

  it('keeps what a crop zooms in on, takes the largest of several drawings, never enlarges', () => {
    const zoomed = image('1', { crop: { x: 0, y: 0, w: 0.25, h: 0.25 } });
    expect(drawnSizes([zoomed], photo).get('1')).toEqual({ width: 2880, height: 2160 });
    const small = image('1', { w: 100, h: 100 });
    expect(drawnSizes([small, image('1')], photo).get('1')).toEqual({ width: 720, height: 540 });
    const tiny = new Map([['1', { width: 50, height: 40 }]]);
    expect(drawnSizes([image('1')], tiny).get('1')).toEqual({ width: 50, height: 40 });
  });

  it('leaves out images the page does not draw, and holds a page to PAGE_IMAGE_PIXELS', () => {
    const ids = Array.from({ length: 20 }, (_, i) => String(i + 1));
    const sources = new Map(ids.map((id) => [id, { width: 7000, height: 7000 }]));
    const full = ids.map((id) => image(id, { w: 1080, h: 1920 }));
    const sizes = drawnSizes([...full, image('99'), image('1', { opacity: 0 })], sources);
    expect([...sizes.keys()]).toEqual(ids);
    const total = [...sizes.values()].reduce((n, s) => n + s.width * s.height, 0);
    expect(total).toBeLessThanOrEqual(PAGE_IMAGE_PIXELS);
    expect(total).toBeGreaterThan(PAGE_IMAGE_PIXELS * 0.99);
  });
});

describe('pageImages', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sps-page-images-'));
  const storage = storageFor(loadConfig({ DATA_DIR: dir }));
  const cache = createPageImageCache();
  const owned = new Map([['7', 'assets/1/big']]);
  beforeAll(async () => {
    const png = await sharp({
      create: { width: 3000, height: 2000, channels: 3, background: '#3366cc' },
    })
      .png()
      .toBuffer();
    await storage.put('assets/1/big', Readable.from([png]));
  });
  afterAll(async () => {
    await cache.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The page's image as the render thread reads it, scaled by `into`. */
  const load = (into: PageImageCache, w: number, h: number, from: Storage = storage) =>
    withPageImages(
      into,
      from,
      owned,
      [image('7', { x: 0, y: 0, w, h })],
      pageDeadline(60_000),
      async (images) => {
        const { file } = images.get('7')!;
        const { data, info } = await sharp(await readFile(file))
          .raw()
          .toBuffer({ resolveWithObject: true });
        return { file, width: info.width, height: info.height, rgb: [...data.subarray(0, 3)] };
      },
    );

  it('hands the renderer pixels at the drawn size, decoded once per size', async () => {
    const scaled = await load(cache, 300, 200);
    expect(scaled).toMatchObject({ width: 300, height: 200, rgb: [0x33, 0x66, 0xcc] });
    // Decoded once: the same file again; another size is another decode.
    expect((await load(cache, 300, 200)).file).toBe(scaled.file);
    const larger = await load(cache, 600, 400);
    expect([larger.width, larger.height]).toEqual([600, 400]);
    expect(larger.file).not.toBe(scaled.file);
  });

  it('keeps each cache to itself: another decodes its own file, and closing one leaves the other', async () => {
    const other = createPageImageCache();
    try {
      const mine = await load(cache, 300, 200);
      const theirs = await load(other, 300, 200);
      expect(theirs.file).not.toBe(mine.file);
      await other.close();
      expect(existsSync(theirs.file)).toBe(false);
      expect(other.files()).toEqual([]);
      expect(existsSync(mine.file)).toBe(true);
      expect((await load(cache, 300, 200)).file).toBe(mine.file);
    } finally {
      await other.close();
    }
  });

  it('reads and decodes nothing more once the time limit has passed', async () => {
    const frame = { x: 0, y: 0, w: 123, h: 82 };
    const drawn = withPageImages(
      cache,
      storage,
      owned,
      [image('7', frame)],
      pageDeadline(0),
      async () => 'drawn',
    );
    await expect(drawn).rejects.toBeInstanceOf(RenderTimedOut);
  });

  it('gives up a storage read that stalls once the page time is up, and leaves no file', async () => {
    const fresh = createPageImageCache();
    const started: Readable[] = [];
    // Opens, sends nothing and never ends: an S3 endpoint that stopped answering.
    const stalled: Storage = {
      ...storage,
      get: async () => {
        const stream = new Readable({ read() {} });
        started.push(stream);
        return stream;
      },
    };
    // Never even opens.
    const unanswered: Storage = { ...storage, get: () => new Promise(() => {}) };
    try {
      for (const from of [stalled, unanswered]) {
        const page = withPageImages(
          fresh,
          from,
          owned,
          [image('7', { x: 0, y: 0, w: 50, h: 50 })],
          pageDeadline(200),
          async () => 'drawn',
        );
        await expect(page).rejects.toBeInstanceOf(RenderTimedOut);
      }
      expect(started.every((s) => s.destroyed)).toBe(true);
      expect(fresh.files()).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});

describe('one time limit for the whole page', () => {
  let db: TestDatabase;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sps-page-deadline-'));
  const storage = storageFor(loadConfig({ DATA_DIR: dir }));
  const cache = createPageImageCache();
  beforeAll(async () => {
    db = await freshDatabase();
    const png = await sharp({ create: { width: 60, height: 60, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    await storage.put('assets/slow/photo', Readable.from([png]));
  });
  afterAll(async () => {
    await cache.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A design of one image whose stored bytes take `readMs` to open. */
  async function slowImageDesign(readMs: number) {
    const acct = await makeAccount(db.pool);
    const asset = await insertAsset(db.pool, {
      accountId: acct.accountId,
      kind: 'image',
      mime: 'image/png',
    });
    await db.pool.query(`update assets set storage_key = 'assets/slow/photo' where id = $1`, [
      asset.id,
    ]);
    // Stored as the API stores a layout: parsed, every default filled in.
    const layout = Layout.parse({
      canvas: { aspect: 'square', bg: '#ffffff' },
      layers: [{ kind: 'image', asset_id: asset.id, x: 0, y: 0, w: 540, h: 540 }],
    });
    const { rows } = await db.pool.query<{ id: string }>(
      `insert into designs (account_id, brand_id, template, layout)
       values ($1, $2, 'blank', $3) returning id::text`,
      [acct.accountId, acct.brandId, JSON.stringify(layout)],
    );
    const slow: Storage = {
      ...storage,
      get: async (key) => {
        await new Promise((r) => setTimeout(r, readMs));
        return storage.get(key);
      },
    };
    return { designId: rows[0]!.id, slow };
  }

  it('drawing gets what loading the images left of it, not a limit of its own', async () => {
    const { designId, slow } = await slowImageDesign(300);
    const given: (number | undefined)[] = [];
    // Records the time it is given, and draws nothing.
    const renderer: RenderPool = {
      timeoutMs: 60_000,
      render: async (_input, opts) => {
        given.push(opts?.timeoutMs);
        throw new Error('not drawn here');
      },
      drawing: async () => {
        throw new Error('not drawn here');
      },
      threadIds: () => [],
      threadFailures: () => 0,
      close: async () => {},
    };
    const deps = { pool: db.pool, storage: slow, renderer, images: cache };
    expect(await renderDesignJob(deps, { design_id: designId, layout_version: 1 })).toBe('failed');
    expect(given).toHaveLength(1);
    expect(given[0]).toBeGreaterThan(0);
    expect(given[0]).toBeLessThanOrEqual(60_000 - 300);
    const status = await db.pool.query('select render_error from designs where id = $1', [
      designId,
    ]);
    expect(status.rows[0].render_error).toMatch(/not drawn here/);
  });
});
