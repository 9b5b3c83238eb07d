// A worker stopping while its local queue holds jobs no worker has taken yet (more jobs due
// than free workers) stops quietly: the running job finishes, the waiting ones go back to the
// queue unlocked and untouched, and nothing is logged at error level.
import { describe, expect, it } from 'vitest';
import type { Connector } from '../../core/connectors/connector.ts';
import { createLogger } from '../../core/logger.ts';
import { startWorker } from '../../workers/index.ts';
import { hourAhead, publishNow } from '../support/jobs.ts';
import { logSink } from '../support/logs.ts';
import { call, makeConnectedAccount, startServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

describe('stopping a worker with jobs fetched but not started', () => {
  it('logs no error, finishes the running job and hands the others back', async () => {
    const server = await startServer();
    try {
      const { key } = await makeConnectedAccount(server.pool, 'mastodon', { scopes: ['publish'] });
      // The first publication blocks until the stop has begun.
      let started = 0;
      let unblock!: () => void;
      const gate = new Promise<void>((resolve) => (unblock = resolve));
      const slow: Connector = {
        async publish() {
          started++;
          await gate;
          return { externalPostId: `ext-${started}`, permalinkUrl: null };
        },
      };
      // Four posts, all due before the worker starts.
      const at = hourAhead();
      for (let i = 0; i < 4; i++) {
        const res = await call(server, 'POST', '/v1/posts', {
          key,
          body: { platform: 'mastodon', body: `post ${i}`, schedule_at: at },
        });
        expect(res.status).toBe(201);
        await publishNow(server.pool, res.body.id);
      }
      const lines: string[] = [];
      const sink = logSink((line) => lines.push(line));
      // One worker, so one job runs and the other three wait in the local queue.
      const worker = await startWorker({
        pool: server.pool,
        concurrency: 1,
        log: createLogger('info', sink),
        connectors: { mastodon: slow },
      });
      await waitFor(async () => started === 1, { what: 'the first publication' });
      expect(worker.runningJobs()).toEqual([expect.stringMatching(/^publish_post #\d+$/)]);
      const stopping = worker.stop();
      unblock();
      await stopping;

      expect(lines.filter((l) => JSON.parse(l).level >= 50)).toEqual([]);
      expect(worker.runningJobs()).toEqual([]);
      const posts = await server.pool.query<{ status: string }>(
        'select status from posts order by id',
      );
      expect(posts.rows.map((r) => r.status).sort()).toEqual([
        'published',
        'scheduled',
        'scheduled',
        'scheduled',
      ]);
      const jobs = await server.pool.query(
        'select locked_by, attempts from graphile_worker.jobs order by id',
      );
      expect(jobs.rows).toEqual([
        { locked_by: null, attempts: 0 },
        { locked_by: null, attempts: 0 },
        { locked_by: null, attempts: 0 },
      ]);
    } finally {
      await server.close();
    }
  });
});
