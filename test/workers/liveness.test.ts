// Worker liveness: a worker killed mid-job (after the platform call, before the commit) has
// its job released by another worker's sweeper once its heartbeat stops, and the post is
// published exactly once; a worker that stops cleanly leaves nothing to sweep.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const dead = await heartbeats(); // the dead worker's, going stale
    expect(dead.length).toBeGreaterThan(0);
    const { rows: beats } = await server.pool.query(
      'select max(last_seen_at) as last from worker_heartbeats',
    );

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
      // job ran again only once they were stale (1 s after the last).
      expect((await heartbeats()).filter((id) => dead.includes(id))).toEqual([]);
      expect(row.published_at.getTime()).toBeGreaterThanOrEqual(beats[0].last.getTime() + 1000);
      const statuses = platform.statuses.filter((s) => s.text === 'swept once');
      expect(statuses).toHaveLength(1);
      expect(row.external_post_id).toBe(statuses[0]!.id);
    } finally {
      await survivor.stop();
    }
    expect(await heartbeats()).toEqual([]);
  });
});
