// POST /v1/generate with the built-in generator on a 2,000-word text: latency at concurrency 1
// and 8, beside the generator called in this process, and the job hop (API → worker → API):
// each request's latency less the time its worker spent on it (the job's started_at to
// finished_at). Target: the hop under 30 ms at p50.
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { offlineDraft } from '../core/generation/offline.ts';
import type { BenchService } from './support.ts';

const WORDS =
  'bakery sourdough flour oven crust morning customers delivery starter fermentation proofing loaves wheat farm café neighbourhood baker dough rye water'.split(
    ' ',
  );

/** About `n` words of deterministic prose, in sentences of 8 to 20 words. */
function prose(n: number): string {
  const sentences: string[] = [];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  let words = 0;
  while (words < n) {
    const length = 8 + (next() % 13);
    const s = Array.from({ length }, () => WORDS[next() % WORDS.length]).join(' ');
    sentences.push(`${s[0]!.toUpperCase()}${s.slice(1)}.`);
    words += length;
  }
  return sentences.join(' ');
}

const pct = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

export async function benchGenerate(svc: BenchService, perLevel = 40) {
  const { accountId } = await createAccount(svc.pool, {
    email: `bench-generate-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, accountId, 100_000_000);
  const { key } = await createApiKey(svc.pool, accountId, { scopes: ['read', 'generate'] });
  const text = prose(2000);

  const one = async () => {
    const started = performance.now();
    const res = await fetch(`${svc.baseUrl}/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    const body = (await res.json()) as { source_id?: string; post_ids?: string[] };
    const total = performance.now() - started;
    if (res.status !== 200)
      throw new Error(`generate answered ${res.status}: ${JSON.stringify(body)}`);
    const { rows } = await svc.pool.query<{ work: number }>(
      `select extract(epoch from (finished_at - started_at)) * 1000 as work from jobs
       where kind = 'generation' and subject like $1`,
      [`source:${body.source_id}:%`],
    );
    return { total, hop: total - Number(rows[0]!.work) };
  };
  for (let i = 0; i < 5; i++) await one(); // warm-up

  const levels: [number, { total: number; hop: number }[]][] = [];
  for (const concurrency of [1, 8]) {
    const seen: { total: number; hop: number }[] = [];
    const each = Math.ceil(perLevel / concurrency);
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = 0; i < each; i++) seen.push(await one());
      }),
    );
    levels.push([concurrency, seen]);
  }

  const direct: number[] = [];
  for (let i = 0; i < perLevel; i++) {
    const started = performance.now();
    for (const platform of ['x', 'linkedin', 'bluesky'] as const)
      offlineDraft({ title: null, text }, platform, { banned: [], always: [], never: [] });
    direct.push(performance.now() - started);
  }

  console.log('POST /v1/generate, built-in generator, a 2,000-word text, 3 drafts a request');
  for (const [concurrency, seen] of levels) {
    const totals = seen.map((s) => s.total);
    const hops = seen.map((s) => s.hop);
    console.log(
      `  concurrency ${concurrency}  latency p50 ${ms(pct(totals, 50))}  p95 ${ms(pct(totals, 95))}  job hop p50 ${ms(pct(hops, 50))}  p95 ${ms(pct(hops, 95))}  (${seen.length} requests)`,
    );
  }
  console.log(
    `  generator in process (3 drafts)  p50 ${ms(pct(direct, 50))}  p95 ${ms(pct(direct, 95))}  (target: job hop p50 < 30 ms)`,
  );

  await benchDraftWeek(svc, key, accountId);
}

/** MCP draft_week for 21 drafts (x, linkedin, bluesky, one a day): call to finished job. */
async function benchDraftWeek(svc: BenchService, key: string, accountId: string) {
  const { rows } = await svc.pool.query<{ id: string }>(
    'select id::text from brands where account_id = $1 order by id limit 1',
    [accountId],
  );
  const rpc = async (name: string, args: Record<string, unknown>) => {
    const res = await fetch(`${svc.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });
    type JobView = { job_id: string; status: string; result: { post_ids: string[] } };
    const body = (await res.json()) as { result?: { structuredContent?: JobView } };
    if (!body.result?.structuredContent) throw new Error(`${name}: ${JSON.stringify(body)}`);
    return body.result.structuredContent;
  };
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const job = await rpc('draft_week', {
      brand_id: rows[0]!.id,
      start_date: new Date(Date.now() + (30 + i * 7) * 86_400_000).toISOString().slice(0, 10),
      platforms: ['x', 'linkedin', 'bluesky'],
      themes: [prose(30), prose(25), prose(20)].map((t) => t.slice(0, 300)),
    });
    let state = job;
    while (state.status === 'queued' || state.status === 'running')
      state = await rpc('job_status', { job_id: job.job_id, wait_s: 20 });
    if (state.status !== 'succeeded' || state.result.post_ids.length !== 21)
      throw new Error(`draft_week: ${JSON.stringify(state)}`);
    runs.push(performance.now() - started);
  }
  console.log(
    `  draft_week, 21 drafts (3 platforms, 7 days)  p50 ${ms(pct(runs, 50))}  max ${ms(Math.max(...runs))}  (${runs.length} runs, call to finished job)`,
  );
}
