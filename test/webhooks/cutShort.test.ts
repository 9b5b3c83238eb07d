// Webhook deliveries are at least once across dead workers: an attempt whose run was cut short
// before the receiver's answer was recorded runs again as the same attempt, and a pending
// delivery left with no job is queued again by the reconciler. Bounded: a delivery is sent at
// most MAX_DELIVERY_RUNS times, and one whose job ran out of runs fails with a reason. (The
// fault suite, test/faults/webhookDelivery.test.ts, kills real worker processes mid-delivery.)
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { withTransaction } from '../../core/db/pool.ts';
import { DELIVERY_JOB_RUNS, deliveryJobKey } from '../../core/jobs/tasks.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { insertEndpointWithin } from '../../core/webhooks/db.ts';
import {
  deliverWebhook,
  MAX_DELIVERY_RUNS,
  queueEventDeliveries,
  reconcileStrandedDeliveries,
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
              coalesce(array_agg(t.error order by t.attempt)
                filter (where t.id is not null), '{}') as errors,
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
    expect(await settled(delivery)).toMatchObject({
      status: 'delivered',
      attempts: 1,
      codes: [204],
      numbers: [1],
    });
    expect(receiver.on('/ok-cut-short')).toHaveLength(1);
  });
});

const policy = () =>
  outboundPolicy(loadConfig({ DATABASE_URL: server.db.url, ...LOOPBACK_OUTBOUND }));

describe('the reconciler', () => {
  it('queues again, for its next attempt, a pending delivery whose job is gone', async () => {
    // One failed attempt recorded (500), its retry's job then lost.
    const lost = await deliveryTo('/flaky-lost-job');
    expect(await deliverWebhook(server.pool, policy(), { delivery_id: lost, attempt: 1 })).toBe(
      'retrying',
    );
    await server.pool.query('select graphile_worker.remove_job($1)', [deliveryJobKey(lost)]);

    expect(await reconcileStrandedDeliveries(server.pool)).toEqual({ requeued: 1, failed: [] });
    expect((await jobByKey(server.pool, deliveryJobKey(lost)))?.attempts).toBe(0);
    expect(await reconcileStrandedDeliveries(server.pool)).toEqual({ requeued: 0, failed: [] });
    worker = await startWorkerBeside(server);
    expect(await settled(lost)).toMatchObject({
      status: 'delivered',
      attempts: 2,
      codes: [500, 204],
      numbers: [1, 2],
    });
  });

  it('never adds again a job out of runs: its delivery fails, and the log says why', async () => {
    // Every run of its first attempt cut short, the last one swept.
    const exhausted = await deliveryTo('/ok-out-of-runs');
    await takenByDeadWorker(exhausted, DELIVERY_JOB_RUNS);
    await server.pool.query(`select graphile_worker.force_unlock_workers('{dead-worker}')`);

    const first = await reconcileStrandedDeliveries(server.pool);
    expect(first).toEqual({ requeued: 0, failed: [{ id: exhausted, job_error: null }] });
    expect(await state(exhausted)).toEqual({
      status: 'failed',
      attempts: 1,
      errors: [expect.stringMatching(/^not sent again: its attempt's job ran 10 times/)],
      codes: [null],
      numbers: [1],
    });
    // Its job is removed, not run again: the next minute finds nothing.
    expect(await jobByKey(server.pool, deliveryJobKey(exhausted))).toBeUndefined();
    expect(await reconcileStrandedDeliveries(server.pool)).toEqual({ requeued: 0, failed: [] });
    expect(receiver.on('/ok-out-of-runs')).toHaveLength(0);
  });
});

describe('a delivery whose runs fail after sending', () => {
  it(`reaches the receiver at most ${MAX_DELIVERY_RUNS} times, then fails with the reason in its log`, async () => {
    const delivery = await deliveryTo('/ok-never-recorded');
    // A fault that lets every run send but not record the receiver's answer (as a bug in
    // recording it would): each run throws after the receiver answered.
    await server.pool.query(
      `create function fail_recording_${delivery}() returns trigger language plpgsql as $$
       begin
         if new.delivery_id = ${delivery} and new.status_code is not null then
           raise exception 'cannot record the outcome';
         end if;
         return new;
       end $$;
       create trigger fail_recording_${delivery} before insert on webhook_attempts
       for each row execute function fail_recording_${delivery}()`,
    );
    const run = () => deliverWebhook(server.pool, policy(), { delivery_id: delivery, attempt: 1 });
    for (let n = 1; n <= MAX_DELIVERY_RUNS; n++)
      await expect(run(), `run ${n}`).rejects.toThrow(/cannot record the outcome/);
    expect(receiver.on('/ok-never-recorded')).toHaveLength(MAX_DELIVERY_RUNS);

    expect(await run()).toBe('failed');
    expect(await run()).toBe('skipped');
    expect(receiver.on('/ok-never-recorded')).toHaveLength(MAX_DELIVERY_RUNS);
    expect(await state(delivery)).toEqual({
      status: 'failed',
      attempts: 1,
      errors: [
        `not sent again: sent ${MAX_DELIVERY_RUNS} times, ${MAX_DELIVERY_RUNS} of them cut short before the outcome was recorded (a worker stopped or failing mid-delivery); a delivery is sent at most ${MAX_DELIVERY_RUNS} times`,
      ],
      codes: [null],
      numbers: [1],
    });
  });

  it('is not queued again by the reconciler once sent as often as it may be', async () => {
    // Its job lost after its last allowed send (the run that would give up never came).
    const delivery = await deliveryTo('/ok-sent-enough');
    await server.pool.query('update webhook_deliveries set runs = $2 where id = $1', [
      delivery,
      MAX_DELIVERY_RUNS,
    ]);
    await server.pool.query('select graphile_worker.remove_job($1)', [deliveryJobKey(delivery)]);

    expect(await reconcileStrandedDeliveries(server.pool)).toEqual({
      requeued: 0,
      failed: [{ id: delivery, job_error: null }],
    });
    expect(await jobByKey(server.pool, deliveryJobKey(delivery))).toBeUndefined();
    expect((await state(delivery)).errors).toEqual([
      expect.stringMatching(/^not sent again: sent 10 times, 10 of them cut short/),
    ]);
    expect(receiver.on('/ok-sent-enough')).toHaveLength(0);
  });
});
