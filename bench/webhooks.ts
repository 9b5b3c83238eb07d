// Webhook deliveries per second to a local receiver that answers 204, and the delay from a
// post's `published` commit to the receiver's arrival (median, p99). Target: median
// under 100 ms. The service must allow loopback (OUTBOUND_ALLOWLIST, OUTBOUND_ALLOW_HTTP).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { upsertConnectedAccount } from '../core/connections/db.ts';
import { withTransaction } from '../core/db/pool.ts';
import { queueEventDeliveries, RETRY_DELAYS_MS } from '../core/webhooks/delivery.ts';
import type { BenchService } from './support.ts';

async function startBenchReceiver(onArrival: (body: string) => void) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      onArrival(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function endpointAccount(svc: BenchService, name: string, url: string) {
  const account = await createAccount(svc.pool, {
    email: `bench-${name}-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, account.accountId, 100_000_000);
  await svc.pool.query(
    `insert into webhook_endpoints (account_id, url, events, secret)
     values ($1, $2, '{post.published,post.failed}', 'whsec_bench')`,
    [account.accountId, url],
  );
  return account;
}

export async function benchWebhooks(svc: BenchService, events = 2000, posts = 200) {
  // Throughput: events written at once, each fanned out to one endpoint.
  let arrived = 0;
  let allArrived: () => void = () => {};
  const done = new Promise<void>((r) => {
    allArrived = r;
  });
  const sink = await startBenchReceiver(() => {
    if (++arrived === events) allArrived();
  });
  const thru = await endpointAccount(svc, 'webhooks', sink.url);
  const started = Date.now();
  await withTransaction(svc.pool, async (tx) => {
    const { rows } = await tx.query(
      `insert into events (account_id, type, body)
       select $1, 'post.published', json_build_object('event', 'post.published', 'n', n)::text
       from generate_series(1, $2) n
       returning id, account_id, type`,
      [thru.accountId, events],
    );
    await queueEventDeliveries(tx, rows);
  });
  await Promise.race([done, new Promise((r) => setTimeout(r, 120_000))]);
  const seconds = (Date.now() - started) / 1000;
  await sink.close();

  // Delay: posts published one after another, each delivered to a receiver.
  const arrivals = new Map<string, number>();
  const receiver = await startBenchReceiver((body) => {
    arrivals.set((JSON.parse(body) as { post: { id: string } }).post.id, Date.now());
  });
  const acct = await endpointAccount(svc, 'webhook-delay', receiver.url);
  await upsertConnectedAccount(svc.pool, {
    accountId: acct.accountId,
    brandId: acct.brand.id,
    platform: 'mastodon',
    handle: '@bench',
  });
  const { key } = await createApiKey(svc.pool, acct.accountId, { scopes: ['publish'] });
  const first = Date.now() + 2000;
  const ids: string[] = [];
  for (let i = 0; i < posts; i++) {
    const res = await fetch(`${svc.baseUrl}/v1/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        platform: 'mastodon',
        body: `webhook ${i}`,
        schedule_at: new Date(first + i * 20).toISOString(),
      }),
    });
    ids.push(((await res.json()) as { id: string }).id);
  }
  const deadline = first + posts * 20 + 30_000;
  while (arrivals.size < posts && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  const { rows } = await svc.pool.query<{ id: string; published_ms: number }>(
    `select id, extract(epoch from published_at) * 1000 as published_ms from posts
     where id = any($1::bigint[]) and status = 'published'`,
    [ids],
  );
  await receiver.close();
  const delays = rows
    .filter((r) => arrivals.has(r.id))
    .map((r) => arrivals.get(r.id)! - Number(r.published_ms))
    .sort((a, b) => a - b);

  console.log('Webhook deliveries to a loopback receiver answering 204');
  console.log(
    `  throughput         ${Math.round(events / seconds)} deliveries/s (${arrived}/${events} in ${seconds.toFixed(1)} s)`,
  );
  console.log(
    `  publish → arrival  median ${Math.round(percentile(delays, 50))} ms, p99 ${Math.round(percentile(delays, 99))} ms over ${delays.length} posts (target: median < 100 ms)`,
  );
  return {
    perSecond: events / seconds,
    median: percentile(delays, 50),
    p99: percentile(delays, 99),
  };
}

/** How the receiver of the retries bench fails each attempt. */
type Failure = 500 | 429 | 'timeout';

/**
 * The real gaps between a failing delivery's attempts: endpoints that answer 500, 429 or never
 * (the attempt times out) get each delivery three times, the retries due 2 s, then 8 s after
 * the previous failure ended (core/webhooks/delivery.ts). Printed for each: the gaps as the
 * receiver saw them, and how late each retry started after its due time, from the attempts
 * recorded (the tests assert the schedule itself, by the jobs' run_at, not these). The 500s
 * run alone first, so their figures are not held up by timed-out attempts holding slots.
 */
export async function benchWebhookRetries(svc: BenchService, deliveries = 20) {
  const fiveHundreds = await measureRetries(svc, 500, deliveries);
  const [throttled, timedOut] = await Promise.all([
    measureRetries(svc, 429, 5),
    measureRetries(svc, 'timeout', 2),
  ]);
  return { 500: fiveHundreds, 429: throttled, timeout: timedOut };
}

async function measureRetries(svc: BenchService, failure: Failure, deliveries: number) {
  const arrivals = new Map<number, number[]>();
  const failing = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n'));
      arrivals.set(n, [...(arrivals.get(n) ?? []), Date.now()]);
      if (failure !== 'timeout') res.writeHead(failure).end();
    });
  });
  await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
  const port = (failing.address() as AddressInfo).port;
  // One endpoint per account (at most five an account): one delivery each.
  const accounts = await Promise.all(
    Array.from({ length: deliveries }, (_, n) =>
      endpointAccount(svc, `retries-${failure}-${n}`, `http://127.0.0.1:${port}/fail?n=${n}`),
    ),
  );
  await withTransaction(svc.pool, async (tx) => {
    const { rows } = await tx.query(
      `insert into events (account_id, type, body)
       select a, 'post.failed', '{"event":"post.failed"}' from unnest($1::bigint[]) a
       returning id, account_id, type`,
      [accounts.map((a) => a.accountId)],
    );
    await queueEventDeliveries(tx, rows);
  });
  const ids = accounts.map((a) => a.accountId);
  const deadline = Date.now() + 90_000;
  let settled = 0;
  while (settled < deliveries && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const { rows } = await svc.pool.query<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries
       where account_id = any($1::bigint[]) and status <> 'pending'`,
      [ids],
    );
    settled = rows[0]!.n;
  }
  failing.closeAllConnections();
  await new Promise<void>((r) => failing.close(() => r()));
  const { rows: attempts } = await svc.pool.query<{
    delivery_id: string;
    attempt: number;
    started_ms: number;
    ended_ms: number;
  }>(
    `select t.delivery_id, t.attempt, extract(epoch from t.attempted_at) * 1000 as started_ms,
            extract(epoch from t.attempted_at) * 1000 + t.duration_ms as ended_ms
     from webhook_attempts t join webhook_deliveries d on d.id = t.delivery_id
     where d.account_id = any($1::bigint[]) order by t.delivery_id, t.attempt`,
    [ids],
  );
  const late: number[][] = [[], []];
  for (let i = 1; i < attempts.length; i++) {
    const [prev, cur] = [attempts[i - 1]!, attempts[i]!];
    if (prev.delivery_id !== cur.delivery_id) continue;
    const delay = RETRY_DELAYS_MS[prev.attempt - 1]!;
    late[prev.attempt - 1]!.push(Number(cur.started_ms) - Number(prev.ended_ms) - delay);
  }
  const gaps: number[][] = [[], []];
  for (const times of arrivals.values())
    for (let i = 1; i < times.length; i++) gaps[i - 1]!.push(times[i]! - times[i - 1]!);
  const figure = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length
      ? `median ${Math.round(percentile(sorted, 50))} ms, p99 ${Math.round(percentile(sorted, 99))} ms, max ${Math.round(sorted.at(-1)!)} ms`
      : 'none measured';
  };
  const answering =
    failure === 'timeout' ? 'never answering (5 s timeout)' : `answering ${failure}`;
  console.log(
    `Webhook retries: ${deliveries} deliveries to an endpoint ${answering} (${settled} settled)`,
  );
  for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
    console.log(
      `  attempt ${i + 2}: gap ${figure(gaps[i]!)} (schedule: ${delay} ms after the failure)`,
    );
    console.log(`             late by ${figure(late[i]!)} after its due time`);
  }
  return { gaps, late };
}
