// A worker through a database outage, in the regular suite: the worker reaches the run's
// Postgres through a proxy of this file's (test/support/dbProxy.ts) that cuts or silences its
// connections, so the server the other tests share never sees the outage. A task still running
// when its runner is stopped keeps its job locked until it ends (the same job never runs twice
// at once), and a database that stops answering without refusing bounds the supervisor's probe
// and never holds a stop. (The fault suite stops a Postgres of its own under bin/start.ts.)
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { createPool, type Pool, withTransaction } from '../../core/db/pool.ts';
import { createLogger } from '../../core/logger.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { insertEndpointWithin } from '../../core/webhooks/db.ts';
import { queueEventDeliveries } from '../../core/webhooks/delivery.ts';
import { startWorker, type WorkerRunner } from '../../workers/index.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { type DbProxy, startDbProxy } from '../support/dbProxy.ts';
import { type HoldingReceiver, startHoldingReceiver } from '../support/holdingReceiver.ts';
import { logSink } from '../support/logs.ts';
import { makeAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

let db: TestDatabase;
let receiver: HoldingReceiver;
let proxy: DbProxy;
let proxied: Pool;
let worker: WorkerRunner | undefined;
let logged: { msg: string; [field: string]: unknown }[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  receiver = await startHoldingReceiver();
});
afterEach(async () => {
  proxy?.set('pass');
  await worker?.stop();
  worker = undefined;
  await proxied?.end().catch(() => undefined);
  await proxy?.close();
});
afterAll(async () => {
  await receiver.close();
  await db.drop();
});

/** A worker of the publish pool whose database connections all go through a fresh proxy. */
async function proxiedWorker(heartbeatMs: number): Promise<WorkerRunner> {
  proxy = await startDbProxy(db.url);
  proxied = createPool(proxy.url, 10);
  logged = [];
  const log = createLogger(
    'info',
    logSink((line) => {
      for (const l of line.split('\n').filter(Boolean)) logged.push(JSON.parse(l));
    }),
  );
  return startWorker({
    pool: proxied,
    concurrency: 2,
    pools: ['publish'],
    log,
    outbound: outboundPolicy(loadConfig({ DATABASE_URL: db.url, ...LOOPBACK_OUTBOUND })),
    liveness: { heartbeatMs, staleAfterMs: 60_000 },
  });
}

const said = (msg: string) => logged.filter((l) => l.msg.startsWith(msg));

/** Events fanned out to one endpoint at the receiver; answers their bodies. */
async function deliveriesOf(accountId: string, names: string[]): Promise<string[]> {
  const bodies = names.map((n) => JSON.stringify({ event: 'post.published', n }));
  await withTransaction(db.pool, async (tx) => {
    const { rows } = await tx.query(
      `insert into events (account_id, type, body)
       select $1, 'post.published', b from unnest($2::text[]) b
       returning id, account_id, type`,
      [accountId, bodies],
    );
    await queueEventDeliveries(tx, rows);
  });
  return bodies;
}

const deliveryOf = async (body: string) =>
  (
    await db.pool.query(
      `select d.status,
              coalesce(array_agg(t.status_code order by t.attempt)
                filter (where t.id is not null), '{}') as codes
       from webhook_deliveries d join events e on e.id = d.event_id
       left join webhook_attempts t on t.delivery_id = d.id
       where e.body = $1 group by d.id`,
      [body],
    )
  ).rows[0] as { status: string; codes: number[] };

const delivered = (body: string) =>
  waitFor(
    async () => {
      const d = await deliveryOf(body);
      return d.status === 'delivered' && d;
    },
    { timeoutMs: 60_000, what: `${body} to be delivered`, detail: () => JSON.stringify(logged) },
  );

describe('a task still running when an outage stops its runner', () => {
  it('keeps its job until it ends: the resumed worker does not run it a second time meanwhile', async () => {
    const acct = await makeAccount(db.pool);
    await withTransaction(db.pool, (tx) =>
      insertEndpointWithin(tx, 5, {
        accountId: acct.accountId,
        url: receiver.url,
        events: ['post.published'],
        secret: 'whsec_outage',
      }),
    );
    // No heartbeat during the test: the outage is found by the runner that cannot record the
    // short delivery's outcome, whose pool then stops itself (the case where a runner's stop
    // returned at once, its long task still running).
    worker = await proxiedWorker(60_000);
    // Both slots busy: a long delivery and a short one, held open by the receiver.
    receiver.holding = true;
    const [long, short] = await deliveriesOf(acct.accountId, ['long', 'short']);
    await waitFor(async () => receiver.held() === 2, {
      what: 'both deliveries in flight',
      detail: () => JSON.stringify(logged),
    });

    // The database goes away; the short delivery's answer comes and cannot be recorded (its
    // runner stops by itself, or the heartbeat finds the outage first), and the worker pauses.
    proxy.set('refuse');
    receiver.answerHeld(500, short!);
    await waitFor(async () => said('workers paused').length > 0, {
      what: 'the pause',
      detail: () => JSON.stringify(logged),
    });
    proxy.set('pass');
    receiver.holding = false;

    // Resumed: fresh runners take new work, and the long delivery, still running in the
    // stopped runner, is not taken again while it runs.
    const [after] = await deliveriesOf(acct.accountId, ['after the outage']);
    await waitFor(
      async () =>
        receiver.of(after!).length > 0 &&
        said('database reachable again: workers resumed').length > 0,
      { what: 'the resumed worker to send new work', detail: () => JSON.stringify(logged) },
    );
    receiver.answerHeld(204, long!);

    // Once it ends its jobs are released, and the short delivery, whose answer was lost,
    // runs again. The long one's runs never overlapped, by the receiver's own record of each
    // request's start and end (on a machine so slow that the held request timed out first,
    // its retries come after it).
    await delivered(after!);
    expect(await delivered(short!)).toEqual({ status: 'delivered', codes: [204] });
    expect(receiver.of(short!).map((a) => a.outcome)).toEqual([500, 204]);
    await delivered(long!);
    const runs = receiver.of(long!);
    for (let i = 1; i < runs.length; i++)
      expect(runs[i]!.at, JSON.stringify(runs)).toBeGreaterThanOrEqual(runs[i - 1]!.endedAt!);
    if (runs[0]!.outcome === 204) expect(runs).toHaveLength(1);
  }, 120_000);
});

describe('a database that stops answering without refusing', () => {
  it('bounds the paused worker’s probe, and its stop returns', async () => {
    worker = await proxiedWorker(200);
    proxy.set('refuse');
    await waitFor(async () => said('workers paused').length > 0, {
      what: 'the pause',
      detail: () => JSON.stringify(logged),
    });
    // Silent now: a connection is accepted and then nothing comes back.
    proxy.set('silent');
    await waitFor(
      async () => said('database still unreachable').some((l) => l.db_error === 'ETIMEDOUT'),
      { timeoutMs: 60_000, what: 'a probe to time out', detail: () => JSON.stringify(logged) },
    );
    const stopping = worker.stop();
    worker = undefined;
    const outcome = await Promise.race([
      stopping.then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('still stopping'), 60_000)),
    ]);
    expect(outcome).toBe('stopped');
  }, 120_000);
});
