// The API's latency while the heaviest layout the limits allow renders, in one process that
// runs the API and the workers (`node bin/start.ts all`, as `npm start`): /healthz is asked
// one request at a time before and during the render. Target: answered within 100 ms.
import sharp from 'sharp';
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { withTransaction } from '../core/db/pool.ts';
import {
  ASPECTS,
  type LayerInput,
  Layout,
  type LayoutInput,
  MAX_LAYERS_PER_PAGE,
  MAX_PAGES,
  MAX_TEXT_PER_LAYER,
  MAX_TEXT_PER_LAYOUT,
} from '../core/designs/schema.ts';
import { checkedLayout, storeDesign } from '../core/designs/service.ts';
import { enqueueRender } from '../core/jobs/tasks.ts';
import { type BenchService, memoryOf, spawnServiceProcess } from './support.ts';

/** What the API takes in one request body (api/app.ts bodyLimit), less room for the post. */
const LAYOUT_BYTES = 1024 * 1024 - 4 * 1024;
const IMAGE_SIDE = 7071; // 49,999,041 pixels: just under the 50-megapixel cap
/** Two new images a page, each used again five pages on: every page decodes its own. */
const IMAGES = 10;
const IMAGE_LAYERS_PER_PAGE = 8;

/** A 50-megapixel photo-like image: smooth colour fields, as a camera makes. */
async function bigImage(seed: number): Promise<Buffer> {
  const tile = Buffer.alloc(64 * 64 * 3);
  for (let i = 0; i < tile.length; i++) tile[i] = (i * 37 + seed * 101 + (i >> 7) * 13) % 256;
  return sharp(tile, { raw: { width: 64, height: 64, channels: 3 } })
    .resize(IMAGE_SIDE, IMAGE_SIDE, { kernel: 'cubic' })
    .jpeg({ quality: 70 })
    .toBuffer();
}

/**
 * Every limit at once: 20 pages of 160 layers; the layout's 20,000 characters of text in the
 * slowest shape to lay out (CJK in 5,000-character lines at 4 px); on every page, eight
 * turned layers of two 50-megapixel images zoomed in (so each would decode at full size, and
 * the page budget applies), a doodle of as many points as the request body leaves room for
 * (up to a stroke's 2,000), and turned, stroked shapes for the rest.
 */
function heaviestLayout(assetIds: string[]): LayoutInput {
  const { width, height } = ASPECTS.story;
  const texts: LayerInput[] = Array.from(
    { length: MAX_TEXT_PER_LAYOUT / MAX_TEXT_PER_LAYER },
    (_, i) => ({
      kind: 'text',
      x: 0,
      y: i * 40,
      w: 10_000,
      size: 4,
      text: '漢字かなカナ'.repeat(1_000).slice(0, MAX_TEXT_PER_LAYER),
    }),
  );
  const pages = Array.from({ length: MAX_PAGES }, (_, p) => {
    const zoom = 0.05 + p * 0.01;
    const images: LayerInput[] = Array.from({ length: IMAGE_LAYERS_PER_PAGE }, (_, i) => ({
      kind: 'image',
      asset_id: assetIds[(2 * p + (i % 2)) % assetIds.length]!,
      x: (i % 2) * 540,
      y: Math.floor(i / 2) * 480,
      w: 540,
      h: 480,
      rotation: 7,
      crop: { x: 0.3, y: 0.3, w: zoom, h: zoom },
    }));
    const pageTexts = p === 0 ? texts : [];
    const shapes: LayerInput[] = Array.from(
      { length: MAX_LAYERS_PER_PAGE - images.length - pageTexts.length - 1 },
      (_, i) => ({
        kind: 'shape',
        shape: i % 2 ? 'ellipse' : 'rect',
        x: (i * 37) % width,
        y: (i * 53) % height,
        w: 300,
        h: 200,
        rotation: 15,
        radius: 40,
        fill: '#336699',
        stroke: '#ffcc00',
        stroke_width: 12,
        opacity: 0.5,
      }),
    );
    return { layers: [...images, ...pageTexts, ...shapes] };
  });
  // Doodles take whatever room the body leaves, one per page.
  const point = (i: number): [number, number] => [
    Math.round((i * 7.3) % width),
    Math.round((i * 3.1) % height),
  ];
  const doodle = (points: number): LayerInput => ({
    kind: 'doodle',
    x: 0,
    y: 0,
    w: width,
    strokes: [{ width: 20, points: Array.from({ length: points }, (_, i) => point(i)) }],
  });
  const bytes = (points: number) =>
    Buffer.byteLength(JSON.stringify({ pages: pages.map((p) => [...p.layers, doodle(points)]) }));
  const perPoint = (bytes(1_000) - bytes(0)) / 1_000 / MAX_PAGES;
  const points = Math.min(2_000, Math.floor((LAYOUT_BYTES - bytes(0)) / MAX_PAGES / perPoint));
  for (const page of pages) page.layers.push(doodle(points));
  return { canvas: { aspect: 'story' }, pages };
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const summary = (xs: number[]) =>
  `p50 ${percentile(xs, 50).toFixed(1)} ms  p99 ${percentile(xs, 99).toFixed(1)} ms  max ${Math.max(...xs).toFixed(1)} ms  (${xs.length} requests)`;

/** Asks /healthz one request at a time, 10 ms apart, until `until` settles. */
async function healthzWhile(baseUrl: string, until: Promise<unknown>) {
  let done = false;
  const stop = () => {
    done = true;
  };
  until.then(stop, stop);
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/healthz`);
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return latencies;
}

export async function benchHeavyRender(svc: BenchService) {
  const { child, ready } = await spawnServiceProcess(
    svc,
    'all',
    /Server listening at (http:\/\/127\.0\.0\.1:\d+)/,
  );
  const baseUrl = ready[1]!;
  const listener = await svc.pool.connect();
  try {
    const account = await createAccount(svc.pool, {
      email: `bench-heavy-${Date.now()}@example.com`,
      password: 'bench password',
      plan: 'business',
    });
    await setBudget(svc.pool, account.accountId, 100_000_000);
    const { key } = await createApiKey(svc.pool, account.accountId, {
      scopes: ['read', 'publish', 'media'],
    });
    const headers = { authorization: `Bearer ${key}` };
    const assetIds: string[] = [];
    for (let i = 0; i < IMAGES; i++) {
      const res = await fetch(`${baseUrl}/v1/assets/upload`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'image/jpeg' },
        body: new Uint8Array(await bigImage(i)),
      });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
      assetIds.push(((await res.json()) as { id: string }).id);
    }
    // Checked as the API checks it (POST /v1/posts, edit_layers, ...): within every limit.
    const given = heaviestLayout(assetIds);
    const layoutBytes = Buffer.byteLength(JSON.stringify(given));
    const layout = await checkedLayout(svc.pool, account.accountId, Layout.parse(given), [
      'layout',
    ]);

    const rendered = new Set<string>();
    listener.on('notification', (n) => rendered.add(n.payload ?? ''));
    await listener.query('listen design_rendered');

    const idle = await healthzWhile(baseUrl, new Promise((r) => setTimeout(r, 3_000)));
    const memoryBefore = await memoryOf(child.pid!);
    const started = performance.now();
    // The design and its render job commit together, as the API commits them; the process
    // under test picks the job up and renders it.
    const render = (async () => {
      const design = await withTransaction(svc.pool, async (tx) => {
        const row = await storeDesign(
          tx,
          { accountId: account.accountId, plan: 'business' },
          {
            from: 'layout',
            brandId: account.brand.id,
            template: 'blank',
            layout,
          },
        );
        await enqueueRender(tx, row);
        return row;
      });
      while (!rendered.has(`${design.id}:${design.layout_version}`))
        await new Promise((resolve) => setTimeout(resolve, 20));
      const { rows } = await svc.pool.query<{ render_error: string | null; pages: number }>(
        `select render_error, (select count(*)::int from assets where design_id = d.id) as pages
         from designs d where id = $1`,
        [design.id],
      );
      return rows[0]!;
    })();
    const during = await healthzWhile(baseUrl, render);
    const outcome = await render;
    const seconds = (performance.now() - started) / 1000;
    const memoryAfter = await memoryOf(child.pid!);

    console.log(
      `Heaviest layout (${MAX_PAGES} story pages × ${MAX_LAYERS_PER_PAGE} layers, ${MAX_TEXT_PER_LAYOUT} characters of CJK at 4 px, ${IMAGE_LAYERS_PER_PAGE} zoomed layers of ${IMAGES} 50 MP JPEGs a page, ${Math.round(layoutBytes / 1024)} KB of JSON) in npm start's process`,
    );
    console.log(`  /healthz idle               ${summary(idle)}`);
    console.log(`  /healthz during the render  ${summary(during)}  (target max < 100 ms)`);
    console.log(
      `  render                      ${seconds.toFixed(1)} s, ${outcome.pages} pages${outcome.render_error ? `, render_error: ${outcome.render_error}` : ''}`,
    );
    console.log(
      `  process RSS                 ${Math.round(memoryBefore.rss / 2 ** 20)} MB before, ${Math.round(memoryAfter.rss / 2 ** 20)} MB after, peak ${Math.round(memoryAfter.peak / 2 ** 20)} MB`,
    );
    return {
      p50: percentile(during, 50),
      max: Math.max(...during),
      renderError: outcome.render_error,
    };
  } finally {
    await listener.query('unlisten design_rendered').catch(() => undefined);
    listener.release();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.kill('SIGTERM')) await exited;
  }
}
