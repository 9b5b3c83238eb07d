// The publication job: a scheduled post is published by a real worker at its time through a
// connector, records its outcome and event, and never publishes twice.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeWorkerUtils } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Connector,
  type Publication,
  PublicationError,
  type PublishRequest,
} from '../../core/connectors/connector.ts';
import { PUBLISH_MAX_ATTEMPTS, TASK } from '../../core/jobs/tasks.ts';
import { publishScheduledPost } from '../../core/posts/publication.ts';
import { schedulePost, unschedulePost } from '../../core/posts/service.ts';
import type { WorkerRunner as Runner } from '../../workers/index.ts';
import {
  type FakePlatform,
  platformConnector,
  startFakePlatform,
} from '../support/fakePlatform.ts';
import { hourAhead, publicationJob, publishNow } from '../support/jobs.ts';
import { call, connectPlatform } from '../support/server.ts';
import {
  startWorkerBeside,
  type TestAccount,
  type TestServer,
  useService,
} from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const svc = useService({ account: { scopes: ['read', 'publish'] } });
let server: TestServer, owner: TestAccount, key: string;
let platform: FakePlatform;
let worker: Runner;
/** What the `x` test connector does on its next call. */
let xBehaviour: (req: PublishRequest) => Promise<Publication> = async () => {
  throw new PublicationError('not set', { retryable: false });
};

const xConnector: Connector = { publish: (req) => xBehaviour(req) };
const caller = () => ({
  accountId: owner.accountId,
  selectedBrandId: owner.brandId,
  credential: { kind: 'api_key' as const, id: '0' },
});

const startPublisher = () =>
  startWorkerBeside(server, {
    connectors: { mastodon: platformConnector(platform.url), x: xConnector },
  });

beforeAll(async () => {
  ({ server, acct: owner, key } = svc);
  platform = await startFakePlatform();
  for (const p of ['mastodon', 'x'] as const) await connectPlatform(server.pool, owner, p);
  worker = await startPublisher();
});
afterAll(async () => {
  await worker.stop();
  await platform.close();
});

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

async function schedule(platformName: string, body: string, at: string) {
  const res = await call(server, 'POST', '/v1/posts', {
    key,
    body: { platform: platformName, body, schedule_at: at },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const postRow = async (id: string) =>
  (await server.pool.query('select * from posts where id = $1', [id])).rows[0];

const settled = (id: string) =>
  waitFor(
    async () => {
      const row = await postRow(id);
      return ['published', 'failed'].includes(row.status) && row;
    },
    { what: `post ${id} to settle` },
  );

const eventsOf = async (id: string) =>
  (await server.pool.query('select type, body from events where post_id = $1 order by id', [id]))
    .rows;

describe('a scheduled post at its time', () => {
  it('is published through the connector, with one post.published event', async () => {
    const body = `Launch day! ${'x'.repeat(200)}`;
    // Created an hour ahead, its job waits for exactly the post's time.
    const id = await schedule('mastodon', body, hourAhead());
    const queued = await publicationJob(server.pool, id);
    expect(queued!.run_at).toEqual((await postRow(id)).scheduled_for);
    // Moved to a second from now (in-process: no request to race the clock), it is claimed at
    // that time, not before, and published after the claim. How late is a bench figure
    // (npm run bench: publicationDelay), not a test's.
    const at = inMs(1000);
    await schedulePost(server.pool, caller(), id, { when: at });
    const row = await settled(id);
    expect(row.status).toBe('published');
    expect(row.scheduled_for.toISOString()).toBe(at);
    const { rows: claims } = await server.pool.query(
      `select created_at from audit_log where post_id = $1 and action = 'publish'`,
      [id],
    );
    expect(claims[0].created_at.getTime()).toBeGreaterThanOrEqual(Date.parse(at));
    expect(row.published_at.getTime()).toBeGreaterThanOrEqual(claims[0].created_at.getTime());
    const status = platform.statuses.find((s) => s.text === body)!;
    expect(row.external_post_id).toBe(status.id);
    expect(row.permalink_url).toBe(status.url);

    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual(['post.published']);
    const payload = JSON.parse(events[0].body);
    expect(payload).toEqual({
      event: 'post.published',
      post: {
        id,
        platform: 'mastodon',
        status: 'published',
        external_post_id: status.id,
        permalink_url: status.url,
        error: null,
        body_preview: body.slice(0, 140),
      },
    });
    const audit = await server.pool.query(
      'select action, from_status, to_status, actor_kind from audit_log where post_id = $1 order by id',
      [id],
    );
    expect(audit.rows).toEqual([
      { action: 'create', from_status: null, to_status: 'scheduled', actor_kind: 'api_key' },
      {
        action: 'schedule',
        from_status: 'scheduled',
        to_status: 'scheduled',
        actor_kind: 'api_key',
      },
      {
        action: 'publish',
        from_status: 'scheduled',
        to_status: 'publishing',
        actor_kind: 'system',
      },
      {
        action: 'published',
        from_status: 'publishing',
        to_status: 'published',
        actor_kind: 'system',
      },
    ]);
    const listed = await call(server, 'GET', '/v1/posts?status_filter=published', { key });
    expect(listed.body.map((p: any) => p.id)).toContain(id);
  });

  it('fails with the reason when the brand has no connected account, and emits post.failed', async () => {
    const id = await schedule('bluesky', 'nowhere to go', hourAhead());
    await publishNow(server.pool, id);
    const row = await settled(id);
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/no connected Bluesky account/);
    const [event] = await eventsOf(id);
    expect(event.type).toBe('post.failed');
    expect(JSON.parse(event.body).post).toMatchObject({
      status: 'failed',
      error: row.error,
      external_post_id: null,
    });
  });

  it('fails a connected platform this version does not publish to, by its name', async () => {
    await connectPlatform(server.pool, owner, 'facebook');
    const id = await schedule('facebook', 'no connector', hourAhead());
    await publishNow(server.pool, id);
    const row = await settled(id);
    expect(row).toMatchObject({
      status: 'failed',
      error: 'Publishing to Facebook is not built yet in this version.',
    });
  });

  it('fails at once when the platform refuses the post, keeping its message', async () => {
    xBehaviour = async () => {
      throw new PublicationError('Status is a duplicate', { retryable: false });
    };
    const id = await schedule('x', 'refused', hourAhead());
    await publishNow(server.pool, id);
    const row = await settled(id);
    expect(row).toMatchObject({ status: 'failed', error: 'Status is a duplicate' });
  });

  it('is left alone when it was rescheduled or unscheduled before its time', async () => {
    const moved = await schedule('mastodon', 'moved', hourAhead());
    const dropped = await schedule('mastodon', 'dropped', hourAhead());
    const later = inMs(7_200_000);
    await schedulePost(server.pool, caller(), moved, { when: later });
    await unschedulePost(server.pool, caller(), dropped);
    expect(await postRow(moved)).toMatchObject({ status: 'scheduled' });
    expect((await postRow(dropped)).status).toBe('approved');
    // What the queue holds decides it: the moved post's one job runs at its new time, the
    // unscheduled post has none (a job already fetched finds the post changed: next test).
    expect((await publicationJob(server.pool, moved))!.run_at.toISOString()).toBe(later);
    expect(await publicationJob(server.pool, dropped)).toBeUndefined();
    expect(platform.statuses.map((s) => s.text)).not.toContain('moved');
    expect(platform.statuses.map((s) => s.text)).not.toContain('dropped');
  });

  it('skips a job whose post time moved (a stale job)', async () => {
    const id = await schedule('mastodon', 'stale', inMs(3_600_000));
    const result = await publishScheduledPost(
      server.pool,
      { connectors: { mastodon: platformConnector(platform.url) } },
      { post_id: id, scheduled_for: inMs(1000), attempts_before: 0 },
      { number: 1, max: 5, signal: new AbortController().signal },
    );
    expect(result).toBe('skipped');
    expect((await postRow(id)).status).toBe('scheduled');
  });
});

describe("a platform's Retry-After", () => {
  it('is honoured by a new job under the post key, run at the time asked, the attempt handed on', async () => {
    const asked: PublishRequest[] = [];
    xBehaviour = async (req) => {
      asked.push(req);
      throw new PublicationError('x answered 429: slow down', {
        retryable: true,
        retryAfterMs: 120_000,
      });
    };
    const id = await schedule('x', 'throttled', hourAhead());
    await publishNow(server.pool, id);
    // The first attempt ran and scheduled the next: a fresh job under the same key, which
    // has the attempts left (the attempt made is handed on).
    const next = await waitFor(
      async () => {
        const job = await publicationJob(server.pool, id);
        return job?.attempts === 0 && job.max_attempts === PUBLISH_MAX_ATTEMPTS - 1 && job;
      },
      { what: 'the job of the next attempt' },
    );
    expect(asked).toHaveLength(1);
    const { rows: audit } = await server.pool.query(
      `select created_at from audit_log where post_id = $1 and action = 'publish'`,
      [id],
    );
    // Run exactly Retry-After after it was added (no backoff on top), after the claim.
    expect(next.delay_ms).toBe(120_000);
    expect(next.updated_at.getTime()).toBeGreaterThanOrEqual(audit[0].created_at.getTime());
    expect((await postRow(id)).status).toBe('publishing');
    // The job that ran completed (it gave its key to the next one): none is left without one.
    await waitFor(
      async () =>
        (
          await server.pool.query(
            'select count(*)::int as n from graphile_worker.jobs where task_identifier = $1 and key is null',
            [TASK.publishPost],
          )
        ).rows[0].n === 0,
      { what: 'the first job to complete' },
    );
    await server.pool.query('select graphile_worker.remove_job($1)', [`publish_post:${id}`]);
  });

  it('keeps the attempt limit and the idempotency key across the jobs it schedules', async () => {
    const keys: string[] = [];
    let id = '';
    xBehaviour = async (req) => {
      if (req.post.id === id) keys.push(req.idempotencyKey);
      throw new PublicationError('x answered 503: busy', { retryable: true, retryAfterMs: 10 });
    };
    id = await schedule('x', 'always busy', hourAhead());
    await publishNow(server.pool, id);
    const row = await settled(id);
    expect(row).toMatchObject({ status: 'failed', error: 'x answered 503: busy' });
    expect(keys).toHaveLength(PUBLISH_MAX_ATTEMPTS);
    expect(new Set(keys)).toEqual(new Set([`${row.uuid}.1`]));
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(['post.failed']);
  });
});

describe('a worker killed after the connector call, before the outcome commits', () => {
  it('does not publish again when the job is retried', async () => {
    // Only the crashing worker process runs while the post comes due.
    await worker.stop();
    const id = await schedule('mastodon', 'exactly once', hourAhead());
    await publishNow(server.pool, id);
    try {
      const child = spawn(process.execPath, [path.join(ROOT, 'test/support/crashingWorker.ts')], {
        env: { ...process.env, DATABASE_URL: server.db.url, PLATFORM_URL: platform.url },
      });
      const signal = await new Promise((r) => child.once('exit', (_code, sig) => r(sig)));
      expect(signal).toBe('SIGKILL');

      // It published once, then died: the post is still `publishing` and its job locked.
      expect(platform.statuses.filter((s) => s.text === 'exactly once')).toHaveLength(1);
      expect((await postRow(id)).status).toBe('publishing');
      const { rows } = await server.pool.query(
        'select locked_by from graphile_worker.jobs where key = $1',
        [`publish_post:${id}`],
      );
      expect(rows[0].locked_by).toBeTruthy();

      // What the worker sweeper does for a dead worker: release its jobs.
      const utils = await makeWorkerUtils({ pgPool: server.pool });
      await utils.forceUnlockWorkers([rows[0].locked_by]);
      await utils.release();
    } finally {
      worker = await startPublisher();
    }
    const row = await settled(id);
    expect(row.status).toBe('published');
    const published = platform.statuses.filter((s) => s.text === 'exactly once');
    expect(published).toHaveLength(1);
    expect(row.external_post_id).toBe(published[0]!.id);
    // Both attempts asked the platform with the same idempotency key.
    const keys = platform.requests.filter((k) => k.startsWith(row.uuid));
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(['post.published']);
  });
});

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
