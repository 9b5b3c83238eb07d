// MCP export_drawing as PNG of a 1080 × 1080 drawing of 500 strokes of 200 points,
// beside perfect-freehand and @napi-rs/canvas called directly in this process. The tool's
// path is the whole of it: the MCP request, the job queued, a worker process drawing it in a
// render thread, the file stored, the API woken, the file read back and sent inline.
// Target: the tool at most 1.3 × the direct drawing. Also printed: the service's own drawing
// code called in-process (sharp's PNG encoder, faster than Skia's), so the figures show what
// the path through MCP, the queue and the worker adds, apart from the encoder it chose.
import { createCanvas } from '@napi-rs/canvas';
import { getStroke } from 'perfect-freehand';
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { CreateDrawingInput } from '../core/drawings/schema.ts';
import { createDrawing } from '../core/drawings/service.ts';
import { drawingPng } from '../render/drawing.ts';
import { type BenchService, spawnServiceProcess } from './support.ts';

const SIDE = 1080;
const STROKES = 500;
const POINTS = 200;

/**
 * Wavy pen strokes across the page, with pressure, from a fixed seed; coordinates to 0.1 px
 * and pressure to 0.01, as a pen or an agent gives them (`exact`: full binary doubles,
 * three times the JSON, the worst case for reading and parsing).
 */
function strokes(exact = false) {
  const fix = (n: number, digits: number) => (exact ? n : Number(n.toFixed(digits)));
  let seed = 19;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: STROKES }, (_, s) => {
    const x0 = random() * SIDE;
    const y0 = random() * SIDE;
    const angle = random() * Math.PI * 2;
    const points = Array.from({ length: POINTS }, (_, i): [number, number, number] => {
      const along = i * 3;
      const wave = Math.sin(i / 8 + s) * 12;
      return [
        fix(Math.min(SIDE, Math.max(0, x0 + Math.cos(angle) * along - Math.sin(angle) * wave)), 1),
        fix(Math.min(SIDE, Math.max(0, y0 + Math.sin(angle) * along + Math.cos(angle) * wave)), 1),
        fix(0.3 + 0.6 * Math.abs(Math.sin(i / 20)), 2),
      ];
    });
    return {
      points,
      color: `#${Math.floor(random() * 0xffffff)
        .toString(16)
        .padStart(6, '0')}`,
      size: 4 + Math.round(random() * 12),
    };
  });
}

/** The baseline: each outline from perfect-freehand filled on a canvas, then PNG-encoded. */
async function directPng(drawn: ReturnType<typeof strokes>): Promise<Buffer> {
  const canvas = createCanvas(SIDE, SIDE);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, SIDE, SIDE);
  for (const s of drawn) {
    const outline = getStroke(s.points, { size: s.size, thinning: 0.5, smoothing: 0.5 });
    ctx.beginPath();
    ctx.moveTo(outline[0]![0]!, outline[0]![1]!);
    for (const [x, y] of outline.slice(1)) ctx.lineTo(x!, y!);
    ctx.closePath();
    ctx.fillStyle = s.color;
    ctx.fill();
  }
  return canvas.encode('png');
}

/** The middle time: a pause for garbage collection in one call does not move it. */
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

type Caller = Parameters<typeof createDrawing>[1];

/** The tool and the direct drawing of `drawn`, in alternating rounds, as median ms. */
async function measure(
  svc: BenchService,
  auth: { key: string; caller: Caller },
  drawn: ReturnType<typeof strokes>,
  perRound: number,
  rounds: number,
) {
  const drawing = await createDrawing(
    svc.pool,
    auth.caller,
    CreateDrawingInput.parse({
      title: 'Bench',
      width: SIDE,
      height: SIDE,
      background: '#ffffff',
      strokes: drawn,
    }),
  );
  // Each call a new export (a scale a millionth apart draws the same 1080 × 1080 pixels): the
  // same arguments again would answer the file drawn already.
  let call = 0;
  const sizes = { tool: 0, direct: 0 };
  const viaTool = async () => {
    call++;
    const started = performance.now();
    const res = await fetch(`${svc.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${auth.key}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: call,
        method: 'tools/call',
        params: {
          name: 'export_drawing',
          arguments: { drawing_id: drawing.id, scale: 1 + call * 1e-6 },
        },
      }),
    });
    const body = (await res.json()) as {
      result?: { content: { type: string; data?: string }[] };
    };
    const image = body.result?.content.find((c) => c.type === 'image');
    if (!image?.data) throw new Error(`export_drawing: ${JSON.stringify(body).slice(0, 300)}`);
    sizes.tool = Buffer.from(image.data, 'base64').length;
    return performance.now() - started;
  };
  const direct = async () => {
    const started = performance.now();
    sizes.direct = (await directPng(drawn)).length;
    return performance.now() - started;
  };
  // The service's own drawing code in this process: what the tool's path adds to it.
  const parsed = CreateDrawingInput.parse({
    title: 'x',
    width: SIDE,
    height: SIDE,
    strokes: drawn,
  });
  const own = async () => {
    const started = performance.now();
    await drawingPng({ ...parsed, background: '#ffffff' });
    return performance.now() - started;
  };
  // Both warm up (the worker's render thread starts on its first drawing).
  for (let i = 0; i < 2; i++) {
    await direct();
    await own();
    await viaTool();
  }
  const times = { direct: [] as number[], own: [] as number[], tool: [] as number[] };
  // Alternating rounds, so load from elsewhere on the machine falls on all alike.
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < perRound; i++) times.direct.push(await direct());
    for (let i = 0; i < perRound; i++) times.tool.push(await viaTool());
    for (let i = 0; i < perRound; i++) times.own.push(await own());
  }
  const json = JSON.stringify(drawn).length;
  return {
    direct: median(times.direct),
    own: median(times.own),
    tool: median(times.tool),
    n: perRound * rounds,
    sizes,
    json,
  };
}

const kb = (n: number) => `${Math.round(n / 1024)} KB`;

export async function benchDrawings(svc: BenchService, perRound = 5, rounds = 8) {
  const account = await createAccount(svc.pool, {
    email: `bench-drawing-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, account.accountId, 100_000_000);
  const { key, id } = await createApiKey(svc.pool, account.accountId, { scopes: ['media'] });
  const caller: Caller = {
    accountId: account.accountId,
    selectedBrandId: account.brand.id,
    credential: { kind: 'api_key', id },
  };
  const worker = (await spawnServiceProcess(svc, 'worker', /"msg":"worker started"/)).child;
  try {
    console.log(`Drawing export: ${SIDE}×${SIDE} PNG, ${STROKES} strokes × ${POINTS} points`);
    let ratio = 0;
    for (const exact of [false, true]) {
      const m = await measure(svc, { key, caller }, strokes(exact), perRound, exact ? 2 : rounds);
      const r = m.tool / m.direct;
      if (!exact) ratio = r;
      console.log(
        exact
          ? `  points as full doubles (${kb(m.json)} of strokes JSON), the worst case:`
          : `  points to 0.1 px (${kb(m.json)} of strokes JSON):`,
      );
      console.log(
        `    perfect-freehand + canvas  ${m.direct.toFixed(1).padStart(7)} ms  ${kb(m.sizes.direct).padStart(7)}  (${m.n})`,
      );
      console.log(
        `    MCP export_drawing         ${m.tool.toFixed(1).padStart(7)} ms  ${kb(m.sizes.tool).padStart(7)}  (${m.n})`,
      );
      console.log(
        `    ratio                      ${r.toFixed(2)}${exact ? '' : ' (target <= 1.30)'}`,
      );
      console.log(
        `    drawingPng in-process      ${m.own.toFixed(1).padStart(7)} ms  (the tool's drawing and encoder: its path adds ${(m.tool / m.own).toFixed(2)}×)`,
      );
    }
    return { ratio };
  } finally {
    worker.kill('SIGTERM');
  }
}
