// Exactly once on Threads across a worker killed with SIGKILL after Threads published the
// container and before the worker heard of it: the worker process runs the shipped connectors
// (Threads pointed at the stand-in by THREADS_API_URL), the stand-in kills it the moment it
// has published, and the retried job finds the container PUBLISHED, reads the post back from
// the account's own and records it instead of publishing again.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { publishNow } from '../support/jobs.ts';
import { META_USER } from '../support/platforms/metaGraph.ts';
import {
  exitSignal,
  releaseDeadWorkersJob,
  startPublishWorker,
} from '../support/platforms/publishCrash.ts';
import {
  threadsEnv,
  useThreadsHarness,
  useThreadsStandIn,
} from '../support/platforms/threadsHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY_B64 = Buffer.alloc(32, 8).toString('base64');
const KEY = credentialsKey(KEY_B64);
const server = useServer({ env: LOOPBACK_OUTBOUND });
// Containers are FINISHED at their first reading: the worker's poll waits 3 s otherwise.
const t = useThreadsStandIn({ processingReads: 0 });
const h = useThreadsHarness(server, t, KEY);

describe('a worker killed after Threads published the container, before it recorded it', () => {
  it('the retried job records the post Threads has, and publishes nothing again', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { kind: 'thread', body: 'Crash one\n---\nCrash two' });
    let child: ChildProcess | undefined;
    // Threads publishes the first part, and the worker dies before the answer reaches it.
    t.onPublish = () => {
      t.onPublish = undefined;
      child?.kill('SIGKILL');
    };
    child = await startPublishWorker(server, { env: threadsEnv(t), credentialsKey: KEY_B64 });
    await publishNow(server.pool, post.id);
    expect(await exitSignal(child)).toBe('SIGKILL');
    expect(t.posts.map((p) => p.text)).toEqual(['Crash one']);
    expect((await h.row(post.id)).status).toBe('publishing');

    // What the sweeper does for a dead worker: release its job; then the job runs again.
    await releaseDeadWorkersJob(server.pool, post.id);
    expect(await h.runJob(post, 2)).toBe('published');

    const [one, two] = t.posts;
    expect(t.posts.map((p) => p.text)).toEqual(['Crash one', 'Crash two']);
    expect(two!.repliedTo).toBe(one!.id);
    const row = await h.row(post.id);
    expect(row.external_post_id).toBe(one!.id);
    expect(row.permalink_url).toBe(one!.permalink);
    // Part one's container was published once, and read back, not published again.
    const publishes = t.received.filter(
      (r) => r.method === 'POST' && r.path === `/v1.0/${META_USER.id}/threads_publish`,
    );
    expect(publishes).toHaveLength(2);
    expect(t.republished).toEqual([]);
    expect(
      t.received.some((r) => r.method === 'GET' && r.path === `/v1.0/${META_USER.id}/threads`),
    ).toBe(true);
  }, 60_000);
});
