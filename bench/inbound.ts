// Mentions: one inbound collection over 50 connected Mastodon accounts with 200 new
// mentions each, read from a local server answering GET /api/v1/notifications on loopback, by
// the domain function each collection job runs, 8 accounts at once (wall time); then
// list_reply_suggestions through MCP for a brand with 100,000 suggestions (p95).
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { loadConfig } from '../core/config.ts';
import { credentialsKey, sealCredentials } from '../core/connections/credentials.ts';
import { upsertConnectedAccount } from '../core/connections/db.ts';
import { builtinConnectors } from '../core/connectors/builtin.ts';
import { collectAccountInbound } from '../core/engagement/collect.ts';
import { outboundPolicy } from '../core/outbound/guard.ts';
import { storageFor } from '../core/storage/storage.ts';
import { startLocalMastodon } from '../test/support/mastodonInstance.ts';
import { type BenchService, mcpToolCall } from './support.ts';

const ACCOUNTS = 50;
const MENTIONS_EACH = 200;
const AT_ONCE = 8;
const SUGGESTIONS = 100_000;
const CALLS = 200;

const p = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

async function benchCollection(svc: BenchService) {
  const instance = await startLocalMastodon();
  const key = credentialsKey(Buffer.alloc(32, 2).toString('base64'));
  const config = loadConfig(process.env);
  const accounts: string[] = [];
  try {
    for (let a = 0; a < ACCOUNTS; a++) {
      const account = await createAccount(svc.pool, {
        email: `bench-inbound-${Date.now()}-${a}@example.com`,
        password: 'bench password',
        plan: 'business',
      });
      const token = `bench-${a}`;
      const connected = await upsertConnectedAccount(svc.pool, {
        accountId: account.accountId,
        brandId: account.brand.id,
        platform: 'mastodon',
        handle: '@bench',
        credentials: sealCredentials(key, { instance: instance.url, access_token: token }),
      });
      accounts.push(String(connected.id));
      // A reading before these mentions came: the next one starts after it.
      await svc.pool.query(
        'insert into inbound_cursors (connected_account_id, cursor) values ($1, $2)',
        [connected.id, '1000'],
      );
      for (let m = 0; m < MENTIONS_EACH; m++)
        instance.mention(token, { author: `fan${m}`, text: `Mention ${m} of account ${a}` });
    }
    const deps = {
      pool: svc.pool,
      connectors: builtinConnectors({
        outbound: outboundPolicy(config),
        storage: storageFor(config),
      }),
      credentialsKey: key,
    };
    const started = performance.now();
    let added = 0;
    const queue = [...accounts];
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        for (let id = queue.shift(); id; id = queue.shift()) {
          const done = await collectAccountInbound(deps, id);
          if (done.outcome !== 'read') throw new Error(JSON.stringify(done));
          added += done.added;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `Inbound collection: ${ACCOUNTS} Mastodon accounts on loopback with ${MENTIONS_EACH} new mentions each, ${AT_ONCE} accounts at once`,
    );
    console.log(
      `  ${added.toLocaleString('en-US')} suggestions kept in ${seconds.toFixed(2)} s (${Math.round(added / seconds)} a second)`,
    );
    return seconds;
  } finally {
    await instance.close();
  }
}

async function benchListing(svc: BenchService) {
  const account = await createAccount(svc.pool, {
    email: `bench-suggestions-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, account.accountId, 100_000_000);
  const { key } = await createApiKey(svc.pool, account.accountId, { scopes: ['read'] });
  const connected = await upsertConnectedAccount(svc.pool, {
    accountId: account.accountId,
    brandId: account.brand.id,
    platform: 'mastodon',
    handle: '@bench',
  });
  const started = performance.now();
  // A quarter answered or dismissed, the rest waiting; one in ten answers a post of ours.
  await svc.pool.query(
    `insert into posts (account_id, brand_id, platform, kind, status, body, external_post_id,
                        published_at)
     select $1, $2, 'mastodon', 'text', 'published', 'Bench post ' || i, 'ours-' || i, now()
     from generate_series(1, 100) i`,
    [account.accountId, account.brand.id],
  );
  await svc.pool.query(
    `insert into inbound_items (account_id, brand_id, connected_account_id, platform, kind,
       external_id, url, author_handle, author_id, text, posted_at, post_id, status,
       reply_external_id, reply_text)
     select $1, $2, $3, 'mastodon', case when i % 10 = 0 then 'reply' else 'mention' end,
       'st-' || i, 'https://social.example/@fan/' || i, 'fan' || (i % 5000), 'a' || (i % 5000),
       'Mention number ' || i || ' with a sentence or two of text, as people write them.',
       now() - make_interval(secs => $4 - i),
       case when i % 10 = 0 then (select min(id) from posts where brand_id = $2) + i % 100 end,
       case i % 8 when 0 then 'replied' when 1 then 'dismissed' when 2 then 'drafted' else 'open' end,
       case when i % 8 = 0 then 'reply-' || i end, case when i % 8 = 0 then 'Thanks!' end
     from generate_series(1, $4) i`,
    [account.accountId, account.brand.id, connected.id, SUGGESTIONS],
  );
  await svc.pool.query('analyze inbound_items');
  const seedS = (performance.now() - started) / 1000;
  const call = async (args: Record<string, unknown>) => {
    const t = performance.now();
    const res = await fetch(
      `${svc.baseUrl}/mcp`,
      mcpToolCall(key, 'list_reply_suggestions', { brand_id: account.brand.id, ...args }),
    );
    const body = (await res.json()) as { result?: { isError?: boolean } };
    if (!body.result || body.result.isError)
      throw new Error(`list_reply_suggestions: ${JSON.stringify(body).slice(0, 300)}`);
    return performance.now() - t;
  };
  console.log(
    `list_reply_suggestions: ${SUGGESTIONS.toLocaleString('en-US')} suggestions of one brand (seeded in ${seedS.toFixed(1)} s), ${CALLS} MCP calls each`,
  );
  const results: Record<string, number> = {};
  const cases: [string, Record<string, unknown>][] = [
    ['waiting (default), 25', {}],
    ['waiting, 100', { limit: 100 }],
    ['replied, 25', { status: 'replied' }],
  ];
  for (const [label, args] of cases) {
    for (let i = 0; i < 10; i++) await call(args);
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) times.push(await call(args));
    results[label] = p(times, 0.95);
    console.log(
      `  ${label.padEnd(24)} p50 ${p(times, 0.5).toFixed(1).padStart(6)} ms  p95 ${p(times, 0.95).toFixed(1).padStart(6)} ms`,
    );
  }
  return results;
}

export async function benchInbound(svc: BenchService) {
  return { collection: await benchCollection(svc), listing: await benchListing(svc) };
}
