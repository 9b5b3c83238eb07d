// Webhook deliveries are at least once across dead workers: an attempt whose run was cut short
// before the receiver's answer was recorded runs again as the same attempt, and a pending
// delivery left with no job that can run is queued again by the reconciler. (The fault suite,
// test/faults/webhookDelivery.test.ts, kills real worker processes mid-delivery.)
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { withTransaction } from '../../core/db/pool.ts';
import { DELIVERY_JOB_RUNS, deliveryJobKey } from '../../core/jobs/tasks.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { insertEndpointWithin } from '../../core/webhooks/db.ts';
import {
  deliverWebhook,
  queueEventDeliveries,
  requeueStrandedDeliveries,
} from '../../core/webhooks/delivery.ts';
import type { WorkerRunner } from '../../workers/index.ts';
import { jobByKey } from '../support/jobs.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { makeAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, startWorkerBeside, useServer } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const server = useServer({ env: LOOPBACK_OUTBOUND });
let receiver: Receiver;
let worker: WorkerRunner | undefined;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});
afterAll(async () => {
  await receiver.close();
});

/** An endpoint at `path` and one event fanned out to it; answers the delivery's id. */
async function deliveryTo(path: string): Promise<string> {
  const acct = await makeAccount(server.pool);
  return withTransaction(server.pool, async (tx) => {
    await insertEndpointWithin(tx, 5, {
      accountId: acct.accountId,
      url: receiver.url(path),
      events: ['post.published'],
      secret: 'whsec_cut_short',
    });
    const { rows } = await tx.query(
      `insert into events (account_id, type, body) values ($1, 'post.published', $2)
       returning id, account_id, type`,
      [acct.accountId, JSON.stringify({ event: 'post.published', path })],
    );
    await queueEventDeliveries(tx, rows);
    return (await tx.query('select id from webhook_deliveries where event_id = $1', [rows[0].id]))
      .rows[0].id as string;
  });
}

/** What Graphile Worker does when a worker takes a job (a run counted), by a worker now dead. */
const takenByDeadWorker = (deliveryId: string, runs = 1) =>
  server.pool.query(
    `update graphile_worker._private_jobs set locked_by = 'dead-worker',
       locked_at = now() - interval '2 seconds', attempts = attempts + $2
     where key = $1`,
    [deliveryJobKey(deliveryId), runs],
  );

const state = async (deliveryId: string) =>
  (
    await server.pool.query(
      `select d.status, d.attempts,
              coalesce(array_agg(t.status_code order by t.attempt)
                filter (where t.id is not null), '{}') as codes,
              coalesce(array_agg(t.attempt order by t.attempt)
                filter (where t.id is not null), '{}') as numbers
       from webhook_deliveries d left join webhook_attempts t on t.delivery_id = d.id
       where d.id = $1 group by d.id`,
      [deliveryId],
    )
  ).rows[0];

const settled = (deliveryId: string) =>
  waitFor(
    async () => {
      const s = await state(deliveryId);
      return s.status !== 'pending' && s;
    },
    { what: `delivery ${deliveryId} to settle` },
  );

describe('an attempt cut short by a dead worker', () => {
  it('runs again once the sweeper releases it, and counts as the one attempt it is', async () => {
    const delivery = await deliveryTo('/ok-cut-short');
    await takenByDeadWorker(delivery);
    worker = await startWorkerBeside(server, {
      liveness: { heartbeatMs: 200, staleAfterMs: 1000 },
    });
    expect(await settled(delivery)).toEqual({
      status: 'delivered',
      attempts: 1,
      codes: [204],
      numbers: [1],
    });
    expect(receiver.on('/ok-cut-short')).toHaveLength(1);
  });
});

describe('the reconciler', () => {
  it('queues again, for its next attempt, a pending delivery whose job is gone or out of runs', async () => {
    // One failed attempt recorded (500), its retry's job then lost.
    const lost = await deliveryTo('/flaky-lost-job');
    const policy = outboundPolicy(
      loadConfig({ DATABASE_URL: server.db.url, ...LOOPBACK_OUTBOUND }),
    );
    expect(await deliverWebhook(server.pool, policy, { delivery_id: lost, attempt: 1 })).toBe(
      'retrying',
    );
    await server.pool.query('select graphile_worker.remove_job($1)', [deliveryJobKey(lost)]);
    // Every run of its first attempt cut short, the last one swept.
    const exhausted = await deliveryTo('/ok-out-of-runs');
    await takenByDeadWorker(exhausted, DELIVERY_JOB_RUNS);
    await server.pool.query(`select graphile_worker.force_unlock_workers('{dead-worker}')`);

    expect(await requeueStrandedDeliveries(server.pool)).toBe(2);
    expect((await jobByKey(server.pool, deliveryJobKey(lost)))?.attempts).toBe(0);
    expect(await requeueStrandedDeliveries(server.pool)).toBe(0);
    worker = await startWorkerBeside(server);
    expect(await settled(lost)).toEqual({
      status: 'delivered',
      attempts: 2,
      codes: [500, 204],
      numbers: [1, 2],
    });
    expect(await settled(exhausted)).toEqual({
      status: 'delivered',
      attempts: 1,
      codes: [204],
      numbers: [1],
    });
  });
});
