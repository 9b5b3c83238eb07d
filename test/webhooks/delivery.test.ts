// Webhook endpoints and deliveries end to end: a dashboard session creates endpoints, events
// fan out to them, and a real worker delivers signed bodies to a receiver on loopback with
// the retry schedule of SPEC.md (immediate, then 2 s and 8 s; 5 s timeout per attempt).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertConnectedAccount } from '../../core/connections/db.ts';
import { withTransaction } from '../../core/db/pool.ts';
import { createLogger } from '../../core/logger.ts';
import { queueEventDeliveries } from '../../core/webhooks/delivery.ts';
import type { WorkerRunner as Runner } from '../../workers/index.ts';
import {
  type FakePlatform,
  platformConnector,
  startFakePlatform,
} from '../support/fakePlatform.ts';
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
      expect(loop.body.detail[0].msg).toMatch(/not a public address/);
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
    const at = new Date(Date.now() + 500).toISOString();
    const post = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'mastodon', body: 'Webhook me', schedule_at: at },
    });

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
    // The endpoint subscribed only to post.failed gets nothing.
    await sleep(500);
    expect(receiver.on('/failed-only')).toHaveLength(0);
    expect(failedOnly.status).toBe(201);
  });

  it('retries 500, 429 and timeouts about 0, 2 and 8 s after each failure, three attempts at most', async () => {
    const { acct, cookie } = await signedIn();
    for (const path of ['/status/500', '/status/429', '/hang'])
      await createEndpoint(cookie, { url: receiver.url(path) });
    await emit(acct, 'post.failed', '{"event":"post.failed"}');
    await waitFor(async () => receiver.on('/hang').length === 3, {
      timeoutMs: 30_000,
      what: 'three timed-out attempts',
    });
    await sleep(1500);
    for (const path of ['/status/500', '/status/429']) {
      const times = receiver.on(path).map((a) => a.at);
      expect(times).toHaveLength(3);
      expect(Math.abs(times[1]! - times[0]! - 2000)).toBeLessThan(500);
      expect(Math.abs(times[2]! - times[1]! - 8000)).toBeLessThan(500);
    }
    // A timed-out attempt ends after 5 s; the next starts 2 s (then 8 s) later.
    const hang = receiver.on('/hang').map((a) => a.at);
    expect(Math.abs(hang[1]! - hang[0]! - 7000)).toBeLessThan(700);
    expect(Math.abs(hang[2]! - hang[1]! - 13000)).toBeLessThan(700);
    const attemptsOf = () =>
      server.pool.query(
        `select t.status_code, t.error from webhook_attempts t join webhook_deliveries d on d.id = t.delivery_id
         join webhook_endpoints w on w.id = d.endpoint_id where w.url = $1 order by t.id`,
        [receiver.url('/hang')],
      );
    const log = await waitFor(
      async () => {
        const res = await attemptsOf();
        return res.rows.length === 3 && res;
      },
      { timeoutMs: 8000, what: 'the third attempt to time out' },
    );
    expect(log.rows.map((r) => r.error)).toEqual([
      expect.stringMatching(/timed out/),
      expect.stringMatching(/timed out/),
      expect.stringMatching(/timed out/),
    ]);
  }, 45_000);

  it('does not retry 400 or 410, and does not follow a redirect', async () => {
    const { acct, cookie } = await signedIn();
    for (const path of ['/status/400', '/status/410', '/redirect'])
      await createEndpoint(cookie, { url: receiver.url(path) });
    await emit(acct, 'post.published', '{"event":"post.published"}');
    await waitFor(
      async () => receiver.on('/redirect').length === 1 && receiver.on('/status/410').length === 1,
    );
    await sleep(2600);
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
    await waitFor(async () => receiver.on('/flaky-log').length === 2, { what: 'the retry' });
    await sleep(200);
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
    await waitFor(async () => receiver.on('/status/503').length === 1);
    await call(server, 'DELETE', `/webhooks/${endpoint.id}`, { headers: { cookie } });
    await sleep(3000);
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
    await waitFor(async () => receiver.on('/flaky-restart').length === 2, {
      what: 'the attempt after the restart',
    });
    const [first, second] = receiver.on('/flaky-restart');
    expect(Math.abs(second!.at - first!.at - 2000)).toBeLessThan(700);
    const { rows } = await server.pool.query(
      'select status from webhook_deliveries where account_id = $1',
      [acct.accountId],
    );
    await waitFor(
      async () =>
        (
          await server.pool.query('select status from webhook_deliveries where account_id = $1', [
            acct.accountId,
          ])
        ).rows[0].status === 'delivered',
    );
    expect(rows).toHaveLength(1);
  });
});
