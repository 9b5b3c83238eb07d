import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { loadConfig } from '../core/config.ts';
import { withTransaction } from '../core/db/pool.ts';
import { ASPECTS, Layout } from '../core/designs/schema.ts';
import { storeDesign } from '../core/designs/service.ts';
import { enqueueRender } from '../core/jobs/tasks.ts';
import { decodeImage, type RenderInput, renderPage } from '../render/canvas.ts';
import { type BenchService, memoryOf, spawnServiceProcess } from './support.ts';

const PHOTO_SIZE = 1000;
const WARM_UP = 50;

/**
 * A photo-like JPEG: smooth colour fields with grain (pure noise would be a worst case no
 * camera produces; a flat colour would flatter decoding and PNG compression).
 */
async function photo(): Promise<Buffer> {
  const fields = await sharp(randomBytes(100 * 100 * 3), {
    raw: { width: 100, height: 100, channels: 3 },
  })
    .resize(PHOTO_SIZE, PHOTO_SIZE, { kernel: 'cubic' })
    .raw()
    .toBuffer();
  const grain = randomBytes(fields.length);
  for (let i = 0; i < fields.length; i++)
    fields[i] = Math.max(0, Math.min(255, fields[i]! + (grain[i]! % 25) - 12));
  return sharp(fields, { raw: { width: PHOTO_SIZE, height: PHOTO_SIZE, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Longer than its frame holds at its size: it wraps, and shrinks to fit (fit: shrink). */
const CAPTION = Array(3)
  .fill('Every draft reviewed, every post scheduled at the right hour, every page rendered.')
  .join(' ');

/**
 * Ten layers: a photo under a caption band, wrapped text fitted to its frames (the shrink
 * search runs on both), a rotated tag, shapes.
 */
const layoutWith = (assetId: string) =>
  Layout.parse({
    canvas: { aspect: 'square', bg: '#f4efe6' },
    layers: [
      { kind: 'shape', shape: 'rect', x: 0, y: 0, w: 1080, h: 300, fill: '#1d3557' },
      { kind: 'image', asset_id: assetId, x: 40, y: 40, w: 1000, h: 620 },
      {
        kind: 'shape',
        shape: 'rect',
        x: 40,
        y: 520,
        w: 1000,
        h: 140,
        fill: '#000000',
        opacity: 0.55,
        radius: 24,
      },
      {
        kind: 'text',
        x: 70,
        y: 540,
        w: 940,
        h: 110,
        fit: 'shrink',
        size: 64,
        weight: 'bold',
        font: 'Montserrat',
        color: '#ffffff',
        text: 'Ship faster: a calmer launch week for the whole team',
      },
      {
        kind: 'text',
        x: 70,
        y: 700,
        w: 940,
        h: 170,
        size: 40,
        fit: 'shrink',
        color: '#222222',
        text: CAPTION,
      },
      {
        kind: 'shape',
        shape: 'ellipse',
        x: 880,
        y: 880,
        w: 160,
        h: 160,
        fill: '#e63946',
        stroke: '#ffffff',
        stroke_width: 8,
      },
      {
        kind: 'shape',
        shape: 'line',
        x: 70,
        y: 920,
        w: 700,
        h: 0,
        stroke: '#1d3557',
        stroke_width: 6,
      },
      {
        kind: 'text',
        x: 900,
        y: 920,
        w: 120,
        size: 40,
        font: 'Oswald',
        color: '#ffffff',
        align: 'center',
        rotation: -12,
        text: 'NEW',
      },
      {
        kind: 'shape',
        shape: 'rect',
        x: 70,
        y: 960,
        w: 300,
        h: 70,
        stroke: '#1d3557',
        stroke_width: 4,
        radius: 35,
      },
      {
        kind: 'text',
        x: 400,
        y: 975,
        w: 440,
        size: 30,
        font: 'Lora',
        color: '#1d3557',
        align: 'right',
        text: 'example.com/launch',
      },
    ],
  });

async function uploadPhoto(svc: BenchService, bytes: Buffer) {
  const account = await createAccount(svc.pool, {
    email: `bench-canvas-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, account.accountId, 100_000_000);
  const { key } = await createApiKey(svc.pool, account.accountId, { scopes: ['read', 'media'] });
  const res = await fetch(`${svc.baseUrl}/v1/assets/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/jpeg' },
    body: new Uint8Array(bytes),
  });
  if (res.status !== 201) throw new Error(`photo upload: ${res.status} ${await res.text()}`);
  return { account, assetId: ((await res.json()) as { id: string }).id };
}

const startWorkerProcess = async (svc: BenchService) =>
  (await spawnServiceProcess(svc, 'worker', /"msg":"worker started"/)).child;

/**
 * Renders designs through the job path as the API does (a new layout_version and its job in
 * one transaction), each call resolving when the worker announces that version.
 */
async function jobRenderer(svc: BenchService) {
  const listener = await svc.pool.connect();
  const waiting = new Map<string, () => void>();
  listener.on('notification', (n) => waiting.get(n.payload ?? '')?.());
  await listener.query('listen design_rendered');
  let failures = 0;
  const render = async (designId: string) => {
    const started = performance.now();
    const version = await withTransaction(svc.pool, async (tx) => {
      const { rows } = await tx.query<{ layout_version: number }>(
        `update designs set layout_version = layout_version + 1 where id = $1
         returning layout_version`,
        [designId],
      );
      const v = rows[0]!.layout_version;
      await enqueueRender(tx, { id: designId, layout_version: v });
      return v;
    });
    const key = `${designId}:${version}`;
    await new Promise<void>((resolve) => waiting.set(key, resolve));
    waiting.delete(key);
    const ms = performance.now() - started;
    const { rows } = await svc.pool.query<{ rendered_version: number | null }>(
      'select rendered_version from designs where id = $1',
      [designId],
    );
    if (rows[0]!.rendered_version !== version) failures++;
    return ms;
  };
  const close = async () => {
    await listener.query('unlisten design_rendered').catch(() => undefined);
    listener.release();
  };
  return { render, close, failures: () => failures };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const mb = (n: number) => Math.round(n / 1024 / 1024);
const perRender = (ms: number) =>
  `${(1000 / ms).toFixed(1).padStart(5)} renders/s  ${ms.toFixed(1).padStart(6)} ms/render`;

export async function benchRenders(
  svc: BenchService,
  renders = Number(process.env.BENCH_RENDERS ?? 1000),
) {
  const concurrency = loadConfig(process.env).workerConcurrency;
  const rounds = 4;
  const perRound = Math.max(1, Math.floor(Math.min(100, renders / 10) / rounds));
  const bytes = await photo();
  const { account, assetId } = await uploadPhoto(svc, bytes);
  const layout = layoutWith(assetId);
  const designs = await Promise.all(
    Array.from({ length: concurrency }, () =>
      storeDesign(
        svc.pool,
        { accountId: account.accountId, plan: 'business' },
        {
          from: 'layout',
          brandId: account.brand.id,
          template: 'blank',
          layout,
        },
      ),
    ),
  );
  const page = { ...ASPECTS.square, bg: layout.canvas.bg, layers: layout.layers! };
  const withBytes = { ...page, images: new Map([[assetId, bytes]]) };
  const withDecoded = { ...page, images: new Map([[assetId, await decodeImage(bytes)]]) };
  // The same page with fitting off: the shrink search's cost is the difference.
  const unfitted = {
    ...withBytes,
    layers: page.layers.map((l) => (l.kind === 'text' ? { ...l, fit: 'clip' as const } : l)),
  };
  const timed = async (input: RenderInput) => {
    const started = performance.now();
    await renderPage(input);
    return performance.now() - started;
  };

  const worker = await startWorkerProcess(svc);
  const jobs = await jobRenderer(svc);
  let done = 0;
  const rss: [number, number][] = [];
  /** `count` renders through the job path, one job per design in flight. */
  const inFlight = async (count: number, onEach?: () => Promise<void>) => {
    let next = 0;
    await Promise.all(
      designs.map(async (d) => {
        while (next < count) {
          next++;
          await jobs.render(d.id);
          done++;
          await onEach?.();
        }
      }),
    );
  };
  try {
    // Both paths warm up; the worker's memory is measured from there on.
    for (let i = 0; i < 5; i++) await timed(withBytes);
    await inFlight(WARM_UP);
    const warm = await memoryOf(worker.pid!);
    rss.push([done, warm.rss]);

    // One render at a time on every path, in alternating rounds so that load from elsewhere
    // on the machine falls on all alike.
    const times = {
      direct: [] as number[],
      unfitted: [] as number[],
      decoded: [] as number[],
      job: [] as number[],
    };
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < perRound; i++) times.direct.push(await timed(withBytes));
      for (let i = 0; i < perRound; i++) times.unfitted.push(await timed(unfitted));
      for (let i = 0; i < perRound; i++) times.decoded.push(await timed(withDecoded));
      for (let i = 0; i < perRound; i++) {
        times.job.push(await jobs.render(designs[0]!.id));
        done++;
      }
    }

    // The rest with the worker's concurrency, its memory sampled every 250 renders.
    const rest = Math.max(0, renders - done);
    const started = performance.now();
    await inFlight(rest, async () => {
      if (done % 250 === 0) rss.push([done, (await memoryOf(worker.pid!)).rss]);
    });
    const concurrentS = (performance.now() - started) / 1000;
    const last = await memoryOf(worker.pid!);
    if (rss.at(-1)![0] !== done) rss.push([done, last.rss]);

    const ratio = mean(times.job) / mean(times.direct);
    const n = rounds * perRound;
    console.log(
      `Canvas render: 1080×1080, 10 layers (4 text, a ${PHOTO_SIZE} px JPEG of ${Math.round(bytes.length / 1024)} KB, 5 shapes) to PNG`,
    );
    console.log(`  direct renderPage           ${perRender(mean(times.direct))}  (${n} renders)`);
    console.log(`  job path, one at a time     ${perRender(mean(times.job))}  (${n} renders)`);
    console.log(
      `  ratio job / direct          ${ratio.toFixed(2)} (target <= 1.30; text fitting on)`,
    );
    console.log(
      `  direct, text fitting off    ${perRender(mean(times.unfitted))}  (shrink search: ${(mean(times.direct) - mean(times.unfitted)).toFixed(2)} ms/render)`,
    );
    console.log(
      `  direct, photo decoded once  ${perRender(mean(times.decoded))}  (job / this: ${(mean(times.job) / mean(times.decoded)).toFixed(2)})`,
    );
    if (rest)
      console.log(
        `  job path, ${concurrency} at a time       ${(rest / concurrentS).toFixed(1).padStart(5)} renders/s  (${rest} renders)`,
      );
    console.log(
      `  worker RSS after renders    ${rss.map(([count, bytes]) => `${count}: ${mb(bytes)} MB`).join(', ')}`,
    );
    console.log(
      `  worker RSS growth           ${mb(last.rss - warm.rss)} MB from ${WARM_UP} to ${done} renders (target < 100 MB); peak ${mb(last.peak)} MB` +
        (jobs.failures() ? `  (failed renders: ${jobs.failures()})` : ''),
    );
    return { ratio, rssGrowthMb: mb(last.rss - warm.rss), failures: jobs.failures() };
  } finally {
    await jobs.close();
    // Stopped before the bench's database goes: the worker drains and closes its pool.
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    if (worker.kill('SIGTERM')) await exited;
  }
}
