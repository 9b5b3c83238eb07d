// A Postgres outage under `npm start`: the service (`bin/start.ts all`) runs
// on a Postgres of this test's own, with a publication and webhook deliveries in hand; that
// Postgres is stopped for some seconds while a delivery is mid-flight (its outcome cannot be
// recorded) and a publication falls due. The process stays up, the API answers 503 with
// Retry-After meanwhile, the workers say they pause and resume, and once Postgres is back (same
// port, same data directory) the work is published and delivered with no restart. A worker
// process (`bin/start.ts worker`) idle through an outage pauses within a heartbeat, polls
// nothing while paused, and resumes by itself.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { createPool, type Pool, withTransaction } from '../../core/db/pool.ts';
import { publicationJobKey } from '../../core/jobs/tasks.ts';
import { insertEndpointWithin } from '../../core/webhooks/db.ts';
import { queueEventDeliveries } from '../../core/webhooks/delivery.ts';
import { type HoldingReceiver, startHoldingReceiver } from '../support/holdingReceiver.ts';
import { hourAhead } from '../support/jobs.ts';
import { type LocalMastodon, startLocalMastodon } from '../support/mastodonInstance.ts';
import { type OwnPostgres, startOwnPostgres } from '../support/ownPostgres.ts';
import { exited, startProcess } from '../support/processes.ts';
import { makeAccount, makeConnectedAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND } from '../support/service.ts';
import { useSpawnedWorkers } from '../support/spawnedWorkers.ts';
import { waitFor } from '../support/wait.ts';

const KEY_B64 = Buffer.alloc(32, 9).toString('base64');
let pg: OwnPostgres;
let pool: Pool;
let dataDir: string;
let receiver: HoldingReceiver;
let mastodon: LocalMastodon;
let service: Awaited<ReturnType<typeof startProcess>> | undefined;
const spawnWorker = useSpawnedWorkers();

beforeAll(async () => {
  pg = await startOwnPostgres();
  pool = createPool(pg.url, 4);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sps-outage-'));
  receiver = await startHoldingReceiver();
  mastodon = await startLocalMastodon();
});
afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGKILL');
    await exited(service.child);
  }
  await pool?.end().catch(() => undefined);
  await receiver?.close();
  await mastodon?.close();
  await pg?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The JSON log lines in `output` whose message begins with `msg`. */
const linesOf = (output: string, msg: string) =>
  output
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return []; // a line still being written, or Graphile Worker's console output
      }
    })
    .filter((l) => typeof l.msg === 'string' && l.msg.startsWith(msg));
/** The service's log lines saying `msg`. */
const logged = (msg: string) => linesOf(service?.output() ?? '', msg);

describe('npm start through a Postgres outage', () => {
  it('stays up, answers 503 with Retry-After, and publishes and delivers once Postgres is back', async () => {
    const { acct, key } = await makeConnectedAccount(pool, 'mastodon', {
      credentials: sealCredentials(credentialsKey(KEY_B64), {
        instance: mastodon.url,
        access_token: 'outage-token',
      }),
    });
    await withTransaction(pool, (tx) =>
      insertEndpointWithin(tx, 5, {
        accountId: acct.accountId,
        url: receiver.url,
        events: ['post.published', 'post.failed'],
        secret: 'whsec_outage',
      }),
    );
    service = await startProcess('all', {
      DATABASE_URL: pg.url,
      DATA_DIR: dataDir,
      CREDENTIALS_KEY: KEY_B64,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_S: '20',
      ...LOOPBACK_OUTBOUND,
    });
    const api = (method: string, route: string, body?: unknown) =>
      fetch(`${service!.baseUrl}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });

    // Work in hand: a post whose publication is made due a few seconds ahead (during the
    // outage), and an event whose delivery the receiver holds open while Postgres goes away.
    const created = await api('POST', '/v1/posts', {
      platform: 'mastodon',
      body: 'Published after the outage',
      schedule_at: hourAhead(),
    });
    expect(created.status).toBe(201);
    const post = (await created.json()) as { id: string };
    receiver.holding = true;
    await withTransaction(pool, async (tx) => {
      const { rows } = await tx.query(
        `insert into events (account_id, type, body) values ($1, 'post.failed', $2)
         returning id, account_id, type`,
        [acct.accountId, JSON.stringify({ event: 'post.failed', n: 'in-flight' })],
      );
      await queueEventDeliveries(tx, rows);
    });
    await waitFor(async () => receiver.held() === 1, {
      what: 'the delivery to reach the receiver',
    });
    const { rows: due } = await pool.query<{ run_at: Date }>(
      `select run_at from graphile_worker.reschedule_jobs(
         array(select id from graphile_worker.jobs where key = $1),
         run_at := now() + interval '5 seconds')`,
      [publicationJobKey(post.id)],
    );
    expect(due).toHaveLength(1);

    await pool.end();
    await pg.stop();
    const stoppedAt = Date.now();
    // The delivery's answer comes while its outcome cannot be recorded.
    receiver.holding = false;
    receiver.answerHeld(500);
    const during: Response[] = [];
    while (Date.now() - stoppedAt < 8_000 || !logged('workers paused').length) {
      during.push(await api('GET', '/v1/me'));
      await new Promise((r) => setTimeout(r, 250));
      expect(service.child.exitCode, service.output()).toBeNull();
    }
    during.push(await api('POST', '/v1/posts', { platform: 'mastodon', body: 'refused' }));
    for (const res of during) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toEqual({
        detail: expect.stringMatching(/database/),
        code: 'database_unavailable',
        retry_after: 5,
      });
    }
    expect(service.child.exitCode, service.output()).toBeNull();
    await pg.start();
    pool = createPool(pg.url, 4);
    // When Postgres came back, by its own clock: the clock published_at is recorded by.
    const { rows: started } = await pool.query<{ at: Date }>(
      'select pg_postmaster_start_time() as at',
    );
    const restartedAt = started[0]!.at.getTime();

    const published = await waitFor(
      async () => {
        const row = (
          await pool.query('select status, published_at from posts where id = $1', [post.id])
        ).rows[0];
        return row.status === 'published' && row;
      },
      { timeoutMs: 90_000, what: 'the publication after the outage', detail: service.output },
    );
    expect(published.published_at.getTime()).toBeGreaterThan(restartedAt);
    expect(mastodon.statuses.map((s) => s.status)).toEqual(['Published after the outage']);
    await waitFor(
      async () => {
        const { rows } = await pool.query(
          `select count(*) filter (where status = 'delivered')::int as delivered,
                  count(*)::int as total
           from webhook_deliveries where account_id = $1`,
          [acct.accountId],
        );
        return rows[0].total === 2 && rows[0].delivered === 2;
      },
      { timeoutMs: 90_000, what: 'both deliveries', detail: service.output },
    );
    expect((await api('GET', '/v1/me')).status).toBe(200);
    // The in-flight delivery's answer during the outage was not recorded, so it is not one of
    // its attempts: it ran again and that run is attempt 1.
    const { rows: attempts } = await pool.query(
      `select t.attempt, t.status_code from webhook_attempts t
       join webhook_deliveries d on d.id = t.delivery_id join events e on e.id = d.event_id
       where e.body like '%in-flight%' order by t.attempt`,
    );
    expect(attempts).toEqual([{ attempt: 1, status_code: 204 }]);

    // The log says what happened: paused, tried again after growing waits, resumed.
    expect(logged('workers paused').length).toBeGreaterThanOrEqual(1);
    const waits = logged('database still unreachable').map((l) => l.retry_in_ms as number);
    expect(waits.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(logged('database reachable again: workers resumed').length).toBeGreaterThanOrEqual(1);

    service.child.kill('SIGTERM');
    expect(await exited(service.child)).toBe(0);
  });
});

describe('npm run worker through an outage with nothing running', () => {
  it('pauses within a heartbeat, polls nothing meanwhile, resumes and delivers by itself', async () => {
    const acct = await makeAccount(pool);
    await withTransaction(pool, (tx) =>
      insertEndpointWithin(tx, 5, {
        accountId: acct.accountId,
        url: receiver.url,
        events: ['post.failed'],
        secret: 'whsec_idle',
      }),
    );
    const worker = await spawnWorker(
      '../../bin/start.ts',
      { DATABASE_URL: pg.url, DATA_DIR: dataDir, LOG_LEVEL: 'info', ...LOOPBACK_OUTBOUND },
      ['worker', '--pool', 'publish'],
    );
    await pool.end();
    await pg.stop();
    await waitFor(async () => linesOf(worker.output(), 'workers paused').length > 0, {
      what: 'the worker to pause',
      detail: worker.output,
    });
    const paused = worker.output().length;
    await new Promise((r) => setTimeout(r, 3_000));
    // While paused, nothing polls the database: only the supervisor's own tries are logged.
    const meanwhile = worker.output().slice(paused);
    expect(meanwhile).not.toMatch(/fetching jobs|notify listener/);
    expect(linesOf(meanwhile, 'database still unreachable').length).toBeGreaterThanOrEqual(1);

    await pg.start();
    pool = createPool(pg.url, 4);
    await waitFor(async () => linesOf(worker.output(), 'database reachable again').length > 0, {
      timeoutMs: 60_000,
      what: 'the worker to resume',
      detail: worker.output,
    });
    await withTransaction(pool, async (tx) => {
      const { rows } = await tx.query(
        `insert into events (account_id, type, body) values ($1, 'post.failed', $2)
         returning id, account_id, type`,
        [acct.accountId, JSON.stringify({ event: 'post.failed', n: 'after-idle-outage' })],
      );
      await queueEventDeliveries(tx, rows);
    });
    await waitFor(
      async () =>
        (
          await pool.query(
            `select 1 from webhook_deliveries where account_id = $1 and status = 'delivered'`,
            [acct.accountId],
          )
        ).rowCount === 1,
      { what: 'the delivery after the outage', detail: worker.output },
    );
    expect((await worker.kill('SIGTERM')).code).toBe(0);
  });
});
