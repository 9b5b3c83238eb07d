// get_analytics and get_best_times through MCP with one million metric rows: a
// brand with 10,000 posts published over the last year, each collected 100 times (the series)
// with its latest counts beside. Both tools read the latest counts, so the series' size must
// not show. Target: p95 under 50 ms.
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { type BenchService, mcpToolCall } from './support.ts';

const POSTS = 10_000;
const COLLECTIONS = 100;
const CALLS = 200;

const p = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

export async function benchInsight(svc: BenchService) {
  const account = await createAccount(svc.pool, {
    email: `bench-insight-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, account.accountId, 100_000_000);
  const { key } = await createApiKey(svc.pool, account.accountId, { scopes: ['read'] });
  const started = performance.now();
  await svc.pool.query(
    `insert into posts (account_id, brand_id, platform, kind, status, body, external_post_id,
                        permalink_url, published_at)
     select $1, $2, case when i % 2 = 0 then 'mastodon' else 'bluesky' end, 'text', 'published',
       'Bench post ' || i, 'ext-' || i, 'https://social.example/' || i,
       now() - make_interval(mins => (i * 52)::int)
     from generate_series(1, $3) i`,
    [account.accountId, account.brand.id, POSTS],
  );
  await svc.pool.query(
    `insert into post_metrics (post_id, collected_at, likes, reposts, replies, quotes)
     select p.id, p.published_at + make_interval(mins => c * 15), (p.id % 97) + c, p.id % 13,
       p.id % 7, null
     from posts p, generate_series(1, $2) c
     where p.brand_id = $1`,
    [account.brand.id, COLLECTIONS],
  );
  await svc.pool.query(
    `insert into post_metrics_latest (post_id, collected_at, likes, reposts, replies, quotes, views)
     select distinct on (post_id) post_id, collected_at, likes, reposts, replies, quotes, views
     from post_metrics m join posts p on p.id = m.post_id
     where p.brand_id = $1 order by post_id, collected_at desc`,
    [account.brand.id],
  );
  await svc.pool.query('analyze posts; analyze post_metrics; analyze post_metrics_latest');
  const { rows } = await svc.pool.query('select count(*)::int as n from post_metrics');
  const seedS = (performance.now() - started) / 1000;

  const call = async (name: string, args: Record<string, unknown>) => {
    const t = performance.now();
    const res = await fetch(
      `${svc.baseUrl}/mcp`,
      mcpToolCall(key, name, { brand_id: account.brand.id, ...args }),
    );
    const body = (await res.json()) as { result?: { isError?: boolean } };
    if (!body.result || body.result.isError)
      throw new Error(`${name}: ${JSON.stringify(body).slice(0, 300)}`);
    return performance.now() - t;
  };
  const year = { from: new Date(Date.now() - 365 * 86_400_000).toISOString() };
  const cases: [string, string, Record<string, unknown>][] = [
    ['get_analytics, last 30 days', 'get_analytics', {}],
    ['get_analytics, a year', 'get_analytics', year],
    ['get_best_times', 'get_best_times', {}],
    ['get_best_times, one platform', 'get_best_times', { platform: 'mastodon' }],
  ];
  console.log(
    `Insight: ${POSTS.toLocaleString('en-US')} posts, ${rows[0].n.toLocaleString('en-US')} metric rows (seeded in ${seedS.toFixed(1)} s), ${CALLS} MCP calls each`,
  );
  const results: Record<string, number> = {};
  for (const [label, name, args] of cases) {
    for (let i = 0; i < 10; i++) await call(name, args);
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) times.push(await call(name, args));
    results[label] = p(times, 0.95);
    console.log(
      `  ${label.padEnd(30)} p50 ${p(times, 0.5).toFixed(1).padStart(6)} ms  p95 ${p(times, 0.95).toFixed(1).padStart(6)} ms (target < 50)`,
    );
  }
  return results;
}
