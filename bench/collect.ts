// Collecting metrics: 10,000 published posts over 50 connected accounts, read from
// a local server answering Mastodon's GET /api/v1/statuses/:id on loopback, by the domain
// function each collection job runs (collectAccountMetrics), 8 accounts at once, each run
// reading the 100 posts most overdue. Graphile Worker's own statements (taking and finishing
// a job) are not in it. Prints the wall time and the database statements per post.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount } from '../core/accounts/service.ts';
import { loadConfig } from '../core/config.ts';
import { credentialsKey, sealCredentials } from '../core/connections/credentials.ts';
import { upsertConnectedAccount } from '../core/connections/db.ts';
import { builtinConnectors } from '../core/connectors/builtin.ts';
import type { Pool } from '../core/db/pool.ts';
import { collectAccountMetrics } from '../core/metrics/collect.ts';
import { POSTS_PER_RUN } from '../core/metrics/db.ts';
import { outboundPolicy } from '../core/outbound/guard.ts';
import { storageFor } from '../core/storage/storage.ts';
import type { BenchService } from './support.ts';

const ACCOUNTS = 50;
const POSTS_EACH = 200;
const AT_ONCE = 8;

export async function benchCollect(svc: BenchService) {
  const instance = createServer((req, res) => {
    const id = /^\/api\/v1\/statuses\/(\d+)$/.exec(req.url ?? '')?.[1];
    if (!id) return res.writeHead(404).end('{}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id,
        favourites_count: Number(id) % 50,
        reblogs_count: Number(id) % 7,
        replies_count: Number(id) % 3,
      }),
    );
  });
  await new Promise<void>((r) => instance.listen(0, '127.0.0.1', r));
  const instanceUrl = `http://127.0.0.1:${(instance.address() as AddressInfo).port}`;
  const key = credentialsKey(Buffer.alloc(32, 1).toString('base64'));
  const config = loadConfig(process.env);
  const accounts: string[] = [];
  try {
    for (let a = 0; a < ACCOUNTS; a++) {
      const account = await createAccount(svc.pool, {
        email: `bench-collect-${Date.now()}-${a}@example.com`,
        password: 'bench password',
        plan: 'business',
      });
      const connected = await upsertConnectedAccount(svc.pool, {
        accountId: account.accountId,
        brandId: account.brand.id,
        platform: 'mastodon',
        handle: '@bench',
        credentials: sealCredentials(key, { instance: instanceUrl, access_token: 't' }),
      });
      accounts.push(String(connected.id));
      await svc.pool.query(
        `insert into posts (account_id, brand_id, platform, kind, status, body, external_post_id,
                            published_at)
         select $1, $2, 'mastodon', 'text', 'published', 'Bench ' || i, ($3 * 1000 + i)::text,
           now() - make_interval(mins => i)
         from generate_series(1, $4) i`,
        [account.accountId, account.brand.id, a, POSTS_EACH],
      );
    }
    // Statements counted on the pool the collection uses (it opens no transaction).
    let statements = 0;
    const counted = {
      query: (...args: unknown[]) => {
        statements++;
        return (svc.pool.query as (...a: unknown[]) => unknown)(...args);
      },
    } as unknown as Pool;
    const deps = {
      pool: counted,
      connectors: builtinConnectors({
        outbound: outboundPolicy(config),
        storage: storageFor(config),
      }),
      credentialsKey: key,
    };
    const started = performance.now();
    let read = 0;
    const queue = [...accounts];
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        for (let id = queue.shift(); id; id = queue.shift()) {
          // As the cron and the keyed job would: runs until the account has nothing due.
          for (;;) {
            const done = await collectAccountMetrics(deps, id);
            if (done.outcome !== 'read' || done.posts === 0) break;
            read += done.counted;
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const posts = ACCOUNTS * POSTS_EACH;
    console.log(
      `Metrics collection: ${posts.toLocaleString('en-US')} posts over ${ACCOUNTS} Mastodon accounts on loopback, ${AT_ONCE} accounts at once, ${POSTS_PER_RUN} posts a run`,
    );
    console.log(
      `  ${read.toLocaleString('en-US')} counted in ${seconds.toFixed(1)} s (${Math.round(read / seconds)} posts/s), ${(statements / read).toFixed(2)} statements a post`,
    );
    return { seconds, statementsPerPost: statements / read };
  } finally {
    await new Promise((r) => instance.close(r));
  }
}
