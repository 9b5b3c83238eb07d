// Worker liveness: a worker killed mid-job (after the platform call, before the commit) has
// its job released by another worker's sweeper once its heartbeat stops, and the post is
// published exactly once; a worker that stops cleanly leaves nothing to sweep.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetWorkers, heartbeat, sweepDeadWorkers } from '../../core/jobs/liveness.ts';
import { createLogger } from '../../core/logger.ts';
import { startWorker } from '../../workers/index.ts';
import {
  type FakePlatform,
  platformConnector,
  startFakePlatform,
} from '../support/fakePlatform.ts';
import { hourAhead, publishNow } from '../support/jobs.ts';
import { call, makeConnectedAccount } from '../support/server.ts';
import { useServer } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const server = useServer();
let platform: FakePlatform;

beforeAll(async () => {
  platform = await startFakePlatform();
});
afterAll(async () => {
  await platform.close();
});

const heartbeats = async () =>
  (await server.pool.query('select worker_id from worker_heartbeats')).rows.map((r) => r.worker_id);

describe('a worker killed mid-publication', () => {
  it('has its job released by the sweeper and the post published exactly once', async () => {
    const { key } = await makeConnectedAccount(server.pool, 'mastodon', { scopes: ['publish'] });
    const post = await call(server, 'POST', '/v1/posts', {
      key,
      body: {
        platform: 'mastodon',
        body: 'swept once',
        schedule_at: hourAhead(),
      },
    });
    await publishNow(server.pool, post.body.id);
    const child = spawn(process.execPath, [path.join(ROOT, 'test/support/crashingWorker.ts')], {
      env: { ...process.env, DATABASE_URL: server.db.url, PLATFORM_URL: platform.url },
    });
    expect(await new Promise((r) => child.once('exit', (_c, sig) => r(sig)))).toBe('SIGKILL');
    // The dead worker's heartbeats, going stale (none, should it have died before its first
    // beat: then the job's own lock, as old, is what the sweeper goes by).
    const dead = await heartbeats();
    const { rows: locks } = await server.pool.query(
      `select locked_by, greatest(j.locked_at, (select max(last_seen_at) from worker_heartbeats))
         as last
       from graphile_worker.jobs j where task_identifier = 'publish_post'`,
    );
    expect(locks).toHaveLength(1);
    expect(locks[0].locked_by).not.toBeNull();

    const survivor = await startWorker({
      pool: server.pool,
      concurrency: 2,
      log: createLogger('silent'),
      connectors: { mastodon: platformConnector(platform.url) },
      liveness: { heartbeatMs: 200, staleAfterMs: 1000 },
    });
    try {
      const row = await waitFor(
        async () => {
          const r = (
            await server.pool.query(
              'select status, external_post_id, published_at from posts where id = $1',
              [post.body.id],
            )
          ).rows[0];
          return r.status === 'published' && r;
        },
        { what: 'the swept job to publish' },
      );
      // The survivor's sweeper released it: the dead worker's heartbeats are gone, and the
      // job ran again only once they (or its lock) were stale (1 s after the last).
      expect((await heartbeats()).filter((id) => dead.includes(id))).toEqual([]);
      expect(row.published_at.getTime()).toBeGreaterThanOrEqual(locks[0].last.getTime() + 1000);
      const statuses = platform.statuses.filter((s) => s.text === 'swept once');
      expect(statuses).toHaveLength(1);
      expect(row.external_post_id).toBe(statuses[0]!.id);
    } finally {
      await survivor.stop();
    }
    expect(await heartbeats()).toEqual([]);
  });
});

describe('a worker killed before its first heartbeat', () => {
  it('has its job released once the lock is stale, only by a sweep that looks for orphans', async () => {
    const { key } = await makeConnectedAccount(server.pool, 'mastodon', { scopes: ['publish'] });
    const post = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'mastodon', body: 'orphaned', schedule_at: hourAhead() },
    });
    await publishNow(server.pool, post.body.id);
    // Locked by a worker that never beat, 2 s ago; and another by a worker beating now.
    const lock = (by: string) =>
      server.pool.query(
        `update graphile_worker._private_jobs j set locked_by = $1,
           locked_at = now() - interval '2 seconds'
         from graphile_worker._private_tasks t
         where t.id = j.task_id and t.identifier = 'publish_post' and j.locked_by is null`,
        [by],
      );
    await lock('ghost');
    const lockedBy = async () =>
      (
        await server.pool.query(
          `select locked_by from graphile_worker.jobs where task_identifier = 'publish_post'`,
        )
      ).rows.map((r) => r.locked_by);
    expect(await sweepDeadWorkers(server.pool, 1000)).toEqual([]);
    expect(await lockedBy()).toEqual(['ghost']);
    expect(await sweepDeadWorkers(server.pool, 5000, { orphans: true })).toEqual([]);
    expect(await sweepDeadWorkers(server.pool, 1000, { orphans: true })).toEqual(['ghost']);
    expect(await lockedBy()).toEqual([null]);

    await heartbeat(server.pool, ['alive']);
    await lock('alive');
    expect(await sweepDeadWorkers(server.pool, 1000, { orphans: true })).toEqual([]);
    expect(await lockedBy()).toEqual(['alive']);
    await forgetWorkers(server.pool, ['alive']);
  });
});
