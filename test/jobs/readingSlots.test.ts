// Readings from the platforms run on a runner of their own in the publish pool: a reading
// stuck on a platform that does not answer holds none of the slots publication runs in, so a
// post due meanwhile is published at once (a worker of concurrency 1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, sealCredentials } from '../../core/connections/credentials.ts';
import { startCollections } from '../../core/metrics/collect.ts';
import type { WorkerRunner } from '../../workers/index.ts';
import { platformConnector, startFakePlatform } from '../support/fakePlatform.ts';
import { startJsonServer } from '../support/jsonServer.ts';
import { readingDeps } from '../support/reading.ts';
import { call, makeConnectedAccount } from '../support/server.ts';
import { LOOPBACK_OUTBOUND, startWorkerBeside, useServer } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';

const KEY = credentialsKey(Buffer.alloc(32, 6).toString('base64'));
const server = useServer({ env: LOOPBACK_OUTBOUND });
/** Status reads the silent instance holds unanswered. */
const held: (() => void)[] = [];
let silentUrl: string;
let closeSilent: () => Promise<void>;
let publisher: Awaited<ReturnType<typeof startFakePlatform>>;
let worker: WorkerRunner;

beforeAll(async () => {
  const silent = await startJsonServer((_req, json) => {
    held.push(() => json(404, { error: 'Record not found' }));
  });
  silentUrl = silent.url;
  closeSilent = silent.close;
  publisher = await startFakePlatform();
});
afterAll(async () => {
  for (const answer of held.splice(0)) answer();
  await worker?.stop();
  await closeSilent();
  await publisher.close();
});

describe('reading slots', () => {
  it('publishes a due post while a reading waits on a silent platform', async () => {
    for (const id of ['1', '2']) {
      const { key } = await makeConnectedAccount(server.pool, 'mastodon', {
        credentials: sealCredentials(KEY, { instance: silentUrl, access_token: 'ok' }),
      });
      const made = await call(server, 'POST', '/v1/posts', {
        key,
        body: { platform: 'mastodon', body: `Status ${id}` },
      });
      await server.pool.query(
        `update posts set status = 'published', external_post_id = $2,
           published_at = now() - interval '1 hour' where id = $1`,
        [made.body.id, id],
      );
    }
    const reading = readingDeps(server, KEY).connectors;
    worker = await startWorkerBeside(server, {
      concurrency: 1,
      credentialsKey: KEY,
      connectors: { mastodon: reading.mastodon, x: platformConnector(publisher.url) },
    });
    expect(await startCollections(server.pool, reading)).toBe(2);
    await waitFor(async () => held.length > 0, { what: 'a reading to wait on the platform' });

    const { key } = await makeConnectedAccount(server.pool, 'x');
    const post = await call(server, 'POST', '/v1/posts', {
      key,
      body: {
        platform: 'x',
        body: 'Due in a moment',
        // Far enough ahead that a slow request still finds it in the future.
        schedule_at: new Date(Date.now() + 2_000).toISOString(),
      },
    });
    expect(post.status).toBe(201);
    // The platform's 30 s timeout is what a reading holding the slot would make it wait.
    const row = await waitFor(
      async () => {
        const { rows } = await server.pool.query('select status from posts where id = $1', [
          post.body.id,
        ]);
        return rows[0].status === 'published' && rows[0];
      },
      { timeoutMs: 10_000, what: 'the post to publish beside the reading' },
    );
    expect(row.status).toBe('published');
    expect(held.length).toBe(1);
  });
});
