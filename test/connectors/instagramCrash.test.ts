// Exactly once on Instagram across a worker killed with SIGKILL after Instagram published the
// container and before the worker heard of it: the worker process runs the shipped connectors
// (Instagram pointed at the stand-in by INSTAGRAM_API_URL), the stand-in kills it the moment
// it has published, and the retried job finds the container PUBLISHED, reads the media back
// from the account's own and records it instead of publishing again.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { publishNow } from '../support/jobs.ts';
import { instagramEnv, useInstagramHarness } from '../support/platforms/instagramHarness.ts';
import { META_USER } from '../support/platforms/metaGraph.ts';
import {
  exitSignal,
  releaseDeadWorkersJob,
  startPublishWorker,
} from '../support/platforms/publishCrash.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const KEY_B64 = Buffer.alloc(32, 6).toString('base64');
const KEY = credentialsKey(KEY_B64);
const server = useServer({ env: LOOPBACK_OUTBOUND });
// Containers are FINISHED at their first reading: the worker's poll waits 3 s otherwise.
const h = useInstagramHarness(server, KEY, { processingPolls: 0 });

describe('a worker killed after Instagram published the container, before it recorded it', () => {
  it('the retried job records the media Instagram has, and publishes nothing again', async () => {
    const { key } = await h.connectBrand();
    const asset = await uploadImage(
      server,
      key,
      await solidPng({ width: 50, height: 40 }, '#c13584'),
    );
    const post = await h.schedule(key, { body: 'Crash once', asset_ids: [asset.id] });
    let child: ChildProcess | undefined;
    // Instagram publishes, and the worker dies before the answer reaches it.
    h.ig.onPublished = () => {
      h.ig.onPublished = undefined;
      child?.kill('SIGKILL');
    };
    child = await startPublishWorker(server, {
      env: instagramEnv(h.ig),
      credentialsKey: KEY_B64,
      publicMedia: true,
    });
    await publishNow(server.pool, post.id);
    expect(await exitSignal(child)).toBe('SIGKILL');
    expect(h.ig.media.map((m) => m.caption)).toEqual(['Crash once']);
    expect((await h.row(post.id)).status).toBe('publishing');

    // What the sweeper does for a dead worker: release its job; then the job runs again.
    await releaseDeadWorkersJob(server.pool, post.id);
    expect(await h.runJob(post, 2)).toBe('published');

    const [media] = h.ig.media;
    expect(h.ig.media).toHaveLength(1);
    const row = await h.row(post.id);
    expect(row.external_post_id).toBe(media!.id);
    expect(row.permalink_url).toBe(media!.permalink);
    // One container, published once, then read back from the account's media.
    const sent = (method: string, edge: string) =>
      h.ig.received.filter(
        (r) => r.method === method && r.path === `/v25.0/${META_USER.id}/${edge}`,
      );
    expect(sent('POST', 'media')).toHaveLength(1);
    expect(sent('POST', 'media_publish')).toHaveLength(1);
    expect(sent('GET', 'media').length).toBeGreaterThan(0);
  }, 60_000);
});
