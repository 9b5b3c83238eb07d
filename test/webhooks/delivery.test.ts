// Webhook endpoints and deliveries end to end: a dashboard session creates endpoints, events
// fan out to them, and a real worker delivers signed bodies to a receiver on loopback with
// the retry schedule of SPEC.md (immediate, then 2 s and 8 s; 5 s timeout per attempt).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { upsertConnectedAccount } from '../../core/connections/db.ts';
import { withTransaction } from '../../core/db/pool.ts';
import { TASK } from '../../core/jobs/tasks.ts';
import { createLogger } from '../../core/logger.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { insertEndpointWithin } from '../../core/webhooks/db.ts';
import { deliverWebhook, queueEventDeliveries } from '../../core/webhooks/delivery.ts';
import type { WorkerRunner as Runner } from '../../workers/index.ts';
import { freshDatabase } from '../support/db.ts';
import {
  type FakePlatform,
  platformConnector,
  startFakePlatform,
} from '../support/fakePlatform.ts';
import { hourAhead, jobByKey, publishNow } from '../support/jobs.ts';
import { logSink } from '../support/logs.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import {
  call,
  login,
  makeAccount,
  makeKey,
  makeSignedInAccount,
  startServer,
} from '../support/server.ts';
import {
  LOOPBACK_OUTBOUND,
  startWorkerBeside,
  type TestAccount,
  useServer,
} from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

let logs = '';
const server = useServer({
  env: LOOPBACK_OUTBOUND,
  logger: createLogger(
    'debug',
    logSink((line) => {
      logs += line;
    }),
  ),
});
let receiver: Receiver;
let platform: FakePlatform;
let worker: Runner;

const startTestWorker = () =>
  startWorkerBeside(server, {
    concurrency: 4,
    connectors: { mastodon: platformConnector(platform.url) },
  });

beforeAll(async () => {
  receiver = await startReceiver();
  platform = await startFakePlatform();
  worker = await startTestWorker();
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await platform.close();
});

const signedIn = (plan: 'free' | 'plus' = 'plus') => makeSignedInAccount(server, plan);

const createEndpoint = (cookie: string, body: unknown) =>
  call(server, 'POST', '/webhooks', { body, headers: { cookie } });

/** Writes an event the way publication does, fanning it out to subscribed endpoints. */
const emit = (acct: TestAccount, type: string, body: string) =>
  withTransaction(server.pool, async (tx) => {
    const { rows } = await tx.query(
      `insert into events (account_id, type, body) values ($1, $2, $3)
       returning id, account_id, type`,
      [acct.accountId, type, body],
    );
    return { id: rows[0].id as string, deliveries: await queueEventDeliveries(tx, rows) };
  });

const hmac = (secret: string, raw: Buffer) =>
  `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An account's deliveries, oldest first; `queued`: a job of theirs is still in the queue. */
const deliveryStates = async (accountId: string) =>
  (
    await server.pool.query<{ id: string; status: string; attempts: number; queued: boolean }>(
      `select d.id, d.status, d.attempts,
              exists (select 1 from graphile_worker.jobs j where j.key = $2 || d.id) as queued
       from webhook_deliveries d where d.account_id = $1 order by d.id`,
      [accountId, `${TASK.deliverWebhook}:`],
    )
  ).rows;

/** The attempts recorded for the deliveries to `url`, in order. */
const attemptsTo = async (url: string) =>
  (
    await server.pool.query<{
      attempt: number;
      attempted_at: Date;
      duration_ms: number;
      status_code: number | null;
      error: string | null;
    }>(
      `select t.attempt, t.attempted_at, t.duration_ms, t.status_code, t.error
       from webhook_attempts t join webhook_deliveries d on d.id = t.delivery_id
       join webhook_endpoints w on w.id = d.endpoint_id where w.url = $1 order by t.id`,
      [url],
    )
  ).rows;

/** The deliveries made to `url` (none for an endpoint not subscribed to the event). */
const deliveriesTo = async (url: string) =>
  (
    await server.pool.query(
      `select d.id from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
       where w.url = $1`,
      [url],
    )
  ).rows;

describe('endpoints (dashboard session only)', () => {
  it('creates with all events by default and shows the secret once, never in GET or logs', async () => {
    const { cookie } = await signedIn();
    const res = await createEndpoint(cookie, { url: receiver.url('/ok') });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      url: receiver.url('/ok'),
      events: ['post.published', 'post.failed', 'competitor.breakout'],
      secret: expect.stringMatching(/^whsec_/),
      created_at: expect.any(String),
    });
    const list = await call(server, 'GET', '/webhooks', { headers: { cookie } });
    expect(list.body).toEqual([
      {
        id: res.body.id,
        url: res.body.url,
        events: res.body.events,
        created_at: res.body.created_at,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(res.body.secret);
  });

  it('allows five endpoints and refuses a sixth with 409', async () => {
    const { cookie } = await signedIn();
    for (let i = 0; i < 5; i++)
      expect((await createEndpoint(cookie, { url: receiver.url(`/ok${i}`) })).status).toBe(201);
    const sixth = await createEndpoint(cookie, { url: receiver.url('/ok6') });
    expect(sixth.status).toBe(409);
    expect(sixth.body.code).toBe('webhook_limit');
  });

  it('refuses unknown events, API keys and the free plan', async () => {
    const { acct, cookie } = await signedIn();
    const unknown = await createEndpoint(cookie, {
      url: receiver.url('/ok'),
      events: ['post.deleted'],
    });
    expect(unknown.status).toBe(422);
    const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
    const bearer = await call(server, 'POST', '/webhooks', {
      key,
      body: { url: receiver.url('/ok') },
    });
    expect(bearer.status).toBe(401);
    const free = await signedIn('free');
    const refused = await createEndpoint(free.cookie, { url: receiver.url('/ok') });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('plan_required');
  });

  it('deletes (204) and answers 404 for an endpoint not owned', async () => {
    const a = await signedIn();
    const b = await signedIn();
    const { body } = await createEndpoint(a.cookie, { url: receiver.url('/ok') });
    expect(
      (await call(server, 'DELETE', `/webhooks/${body.id}`, { headers: { cookie: b.cookie } }))
        .status,
    ).toBe(404);
    expect(
      (await call(server, 'DELETE', `/webhooks/${body.id}`, { headers: { cookie: a.cookie } }))
        .status,
    ).toBe(204);
    expect(
      (await call(server, 'GET', '/webhooks', { headers: { cookie: a.cookie } })).body,
    ).toEqual([]);
  });

  it('refuses loopback when the allowlist is empty, and http unless allowed', async () => {
    const strict = await startServer();
    try {
      const acct = await makeAccount(strict.pool);
      const cookie = await login(strict, acct);
      const loop = await call(strict, 'POST', '/webhooks', {
        body: { url: 'https://127.0.0.1:1/hook' },
        headers: { cookie },
      });
      expect(loop.status).toBe(422);
      expect(loop.body.detail[0].msg).toMatch(/does not resolve to a public address/);
      const http = await call(strict, 'POST', '/webhooks', {
        body: { url: 'http://example.com/hook' },
        headers: { cookie },
      });
      expect(http.status).toBe(422);
      expect(http.body.detail[0].msg).toMatch(/https/);
    } finally {
      await strict.close();
    }
  });
});

// Independent accounts and endpoints: these wait on the retry clock side by side.
describe.concurrent('delivery', () => {
  it('delivers a post published by the lifecycle as post.published, signed over the raw body', async () => {
    const { acct, cookie } = await signedIn();
    const { body: endpoint } = await createEndpoint(cookie, { url: receiver.url('/published') });
    const failedOnly = await createEndpoint(cookie, {
      url: receiver.url('/failed-only'),
      events: ['post.failed'],
    });
    await upsertConnectedAccount(server.pool, {
      accountId: acct.accountId,
      brandId: acct.brandId,
      platform: 'mastodon',
      handle: '@b',
    });
    const key = await makeKey(server.pool, acct.accountId, ['read', 'publish']);
    const post = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'mastodon', body: 'Webhook me', schedule_at: hourAhead() },
    });
    await publishNow(server.pool, post.body.id);

    await waitFor(async () => receiver.on('/published').length > 0, { what: 'the webhook' });
    const [arrival] = receiver.on('/published');
    expect(arrival!.headers['content-type']).toBe('application/json');
    expect(arrival!.headers['x-service-signature']).toBe(hmac(endpoint.secret, arrival!.raw));
    const payload = JSON.parse(arrival!.raw.toString('utf8'));
    const row = (
      await server.pool.query('select external_post_id, permalink_url from posts where id = $1', [
        post.body.id,
      ])
    ).rows[0];
    expect(payload).toEqual({
      event: 'post.published',
      post: {
        id: post.body.id,
        platform: 'mastodon',
        status: 'published',
        external_post_id: row.external_post_id,
        permalink_url: row.permalink_url,
        error: null,
        body_preview: 'Webhook me',
      },
    });
    // The endpoint subscribed only to post.failed gets nothing: the event, written with its
    // deliveries, has none for it.
    expect(failedOnly.status).toBe(201);
    expect(await deliveriesTo(receiver.url('/failed-only'))).toEqual([]);
    expect(receiver.on('/failed-only')).toHaveLength(0);
  });

  it('queues each retry of a 500, a 429 or a timeout 2 s, then 8 s, after the failed attempt, and none after the third', async () => {
    // A database no worker serves: each next attempt's job stays queued to be read (its run_at
    // is the schedule), and the attempts are made here, one by one. The real gaps between
    // attempts run by a worker are a bench figure (npm run bench: webhookRetries).
    const db = await freshDatabase();
    try {
      const acct = await makeAccount(db.pool);
      // Paths of this test's own: the receiver is shared with the tests running beside it.
      const paths = ['/status/500/schedule', '/status/429/schedule', '/hang/schedule'];
      for (const path of paths)
        await withTransaction(db.pool, (tx) =>
          insertEndpointWithin(tx, 5, {
            accountId: acct.accountId,
            url: receiver.url(path),
            events: ['post.failed'],
            secret: 'whsec_schedule',
          }),
        );
      const deliveries = await withTransaction(db.pool, async (tx) => {
        const { rows } = await tx.query(
          `insert into events (account_id, type, body) values ($1, 'post.failed', '{}')
           returning id, account_id, type`,
          [acct.accountId],
        );
        await queueEventDeliveries(tx, rows);
        const made = await tx.query<{ id: string; url: string }>(
          `select d.id, w.url from webhook_deliveries d
           join webhook_endpoints w on w.id = d.endpoint_id where d.event_id = $1`,
          [rows[0].id],
        );
        return new Map(made.rows.map((d) => [d.url, d.id]));
      });
      const policy = outboundPolicy(loadConfig({ DATABASE_URL: db.url, ...LOOPBACK_OUTBOUND }));
      const attemptsOf = async (delivery: string) =>
        (
          await db.pool.query<{
            attempted_at: Date;
            duration_ms: number;
            status_code: number | null;
            error: string | null;
          }>(
            `select attempted_at, duration_ms, status_code, error from webhook_attempts
             where delivery_id = $1 order by attempt`,
            [delivery],
          )
        ).rows;

      /** Makes attempts 1 to `last` of the delivery to `path`; what each failure queued. */
      const failThrough = async (path: string, last: number) => {
        const delivery = deliveries.get(receiver.url(path))!;
        const key = `${TASK.deliverWebhook}:${delivery}`;
        for (let n = 1; n <= last; n++) {
          if (n === 3) {
            const queued = await jobByKey(db.pool, key);
            expect(
              await deliverWebhook(db.pool, policy, { delivery_id: delivery, attempt: n }),
            ).toBe('failed');
            expect(await jobByKey(db.pool, key), path).toEqual(queued); // nothing added after the last
            break;
          }
          expect(
            await deliverWebhook(db.pool, policy, { delivery_id: delivery, attempt: n }),
            `${path} attempt ${n}`,
          ).toBe('retrying');
          const failed = (await attemptsOf(delivery)).at(-1)!;
          const next = (await jobByKey(db.pool, key))!;
          // Added when the failure was recorded, after the attempt ended (a timed-out attempt
          // ends at its timeout), due 2 s, then 8 s, later.
          expect(next.delay_ms, `${path} after attempt ${n}`).toBe([2000, 8000][n - 1]);
          expect(next.updated_at.getTime(), path).toBeGreaterThanOrEqual(
            failed.attempted_at.getTime() + failed.duration_ms,
          );
        }
        expect(receiver.on(path), path).toHaveLength(last);
        return (await attemptsOf(delivery)).map((a) => [a.status_code, a.error]);
      };

      // A timed-out attempt takes its whole 5 s: one is enough to show it retried like the
      // others (which attempt is the last does not depend on why it failed).
      const [fiveHundreds, throttled, timedOut] = await Promise.all([
        failThrough(paths[0]!, 3),
        failThrough(paths[1]!, 3),
        failThrough(paths[2]!, 1),
      ]);
      expect(fiveHundreds).toEqual([
        [500, null],
        [500, null],
        [500, null],
      ]);
      expect(throttled).toEqual([
        [429, null],
        [429, null],
        [429, null],
      ]);
      expect(timedOut).toEqual([[null, expect.stringMatching(/timed out/)]]);
    } finally {
      await db.drop();
    }
  });

  it('does not retry 400 or 410, and does not follow a redirect', async () => {
    const { acct, cookie } = await signedIn();
    for (const path of ['/status/400', '/status/410', '/redirect'])
      await createEndpoint(cookie, { url: receiver.url(path) });
    await emit(acct, 'post.published', '{"event":"post.published"}');
    // Each delivery failed at its first attempt and has no job left: nothing more can come.
    await waitFor(
      async () =>
        (await deliveryStates(acct.accountId)).every((d) => d.status === 'failed' && !d.queued),
      { what: 'the deliveries to settle' },
    );
    expect(receiver.on('/status/400')).toHaveLength(1);
    expect(receiver.on('/status/410')).toHaveLength(1);
    expect(receiver.on('/redirect')).toHaveLength(1);
    expect(receiver.on('/ok-redirected')).toHaveLength(0);
    const { rows } = await server.pool.query(
      `select w.url, d.status, d.attempts from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
       where d.account_id = $1 order by w.id`,
      [acct.accountId],
    );
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['failed', 1],
      ['failed', 1],
      ['failed', 1],
    ]);
  });

  it('logs every attempt newest first, and replays a delivery with the same bytes', async () => {
    const { acct, cookie } = await signedIn();
    const { body: endpoint } = await createEndpoint(cookie, { url: receiver.url('/flaky-log') });
    await emit(acct, 'post.published', '{"event":"post.published","n":1}');
    await waitFor(async () => (await deliveryStates(acct.accountId))[0]?.status === 'delivered', {
      what: 'the retry',
    });
    const log = await call(server, 'GET', `/webhooks/${endpoint.id}/deliveries`, {
      headers: { cookie },
    });
    expect(log.status).toBe(200);
    expect(log.body.map((r: any) => [r.attempt, r.status_code, r.delivery_status])).toEqual([
      [2, 204, 'delivered'],
      [1, 500, 'delivered'],
    ]);
    const replay = await call(
      server,
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${log.body[0].delivery_id}/replay`,
      { headers: { cookie } },
    );
    expect(replay.status).toBe(202);
    await waitFor(async () => receiver.on('/flaky-log').length === 3, { what: 'the replay' });
    const [first, , replayed] = receiver.on('/flaky-log');
    expect(replayed!.raw.equals(first!.raw)).toBe(true);
    expect(replayed!.headers['x-service-signature']).toBe(first!.headers['x-service-signature']);
    const other = await signedIn();
    expect(
      (
        await call(server, 'GET', `/webhooks/${endpoint.id}/deliveries`, {
          headers: { cookie: other.cookie },
        })
      ).status,
    ).toBe(404);
  });

  it('stops the pending deliveries of a deleted endpoint', async () => {
    const { acct, cookie } = await signedIn();
    const { body: endpoint } = await createEndpoint(cookie, { url: receiver.url('/status/503') });
    await emit(acct, 'post.failed', '{"event":"post.failed","n":2}');
    // The first attempt failed and queued the second (they commit together).
    const [delivery] = await waitFor(async () => {
      const states = await deliveryStates(acct.accountId);
      return states[0]?.attempts === 1 && states;
    });
    await call(server, 'DELETE', `/webhooks/${endpoint.id}`, { headers: { cookie } });
    // The second attempt's job runs at its time, finds nothing to send and is done.
    await waitFor(
      async () => !(await jobByKey(server.pool, `${TASK.deliverWebhook}:${delivery!.id}`)),
      {
        what: "the second attempt's job to finish",
      },
    );
    expect(receiver.on('/status/503')).toHaveLength(1);
  });
});

// Runs alone: it stops and restarts the shared worker.
describe('a worker restart', () => {
  it('survives a worker restart between attempts', async () => {
    const { acct, cookie } = await signedIn();
    await createEndpoint(cookie, { url: receiver.url('/flaky-restart') });
    await emit(acct, 'post.published', '{"event":"post.published","n":3}');
    await waitFor(async () => receiver.on('/flaky-restart').length === 1);
    await worker.stop();
    await sleep(300);
    worker = await startTestWorker();
    await waitFor(async () => (await deliveryStates(acct.accountId))[0]?.status === 'delivered', {
      what: 'the attempt after the restart',
    });
    expect(receiver.on('/flaky-restart')).toHaveLength(2);
    expect(await deliveryStates(acct.accountId)).toHaveLength(1);
    // The retry kept its schedule across the restart: 2 s or more after the failure ended.
    const [first, second] = await attemptsTo(receiver.url('/flaky-restart'));
    expect(second!.attempted_at.getTime()).toBeGreaterThanOrEqual(
      first!.attempted_at.getTime() + first!.duration_ms + 2000,
    );
  });
});
