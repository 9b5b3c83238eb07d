// Exactly once on X across a worker killed with SIGKILL after X made the post and before the
// worker heard of it: the worker process runs the shipped connectors (X pointed at the
// stand-in by X_API_URL), the stand-in kills it the moment it has made the post, and the
// retried job finds that post among the account's own and records it instead of posting again.
// Likewise a worker killed between two segments of a video's chunked upload: the retried job
// appends the rest to the same media id.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { SEGMENT_BYTES } from '../../core/connectors/x/media.ts';
import { publishNow } from '../support/jobs.ts';
import { makeHeavyClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import {
  exitSignal,
  releaseDeadWorkersJob,
  startPublishWorker,
} from '../support/platforms/publishCrash.ts';
import { useXHarness, useXStandIn } from '../support/platforms/xHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';

const KEY_B64 = Buffer.alloc(32, 4).toString('base64');
const KEY = credentialsKey(KEY_B64);
const server = useServer({ env: LOOPBACK_OUTBOUND });
const x = useXStandIn();
const h = useXHarness(server, x, KEY);

/** A worker process on the shipped connectors, X at the stand-in, once it has started. */
const startWorker = () =>
  startPublishWorker(server, { env: { X_API_URL: x.url }, credentialsKey: KEY_B64 });

describe('a worker killed after X made the post, before it recorded it', () => {
  it('the retried job records the post X has, and posts nothing again', async () => {
    const { key } = await h.connectBrand();
    const post = await h.schedule(key, { kind: 'thread', body: 'Crash one\n---\nCrash two' });
    let child: ChildProcess | undefined;
    // X makes the first part, and the worker dies before X's answer reaches it.
    x.onCreate = () => {
      x.onCreate = undefined;
      child?.kill('SIGKILL');
    };
    child = await startWorker();
    await publishNow(server.pool, post.id);
    expect(await exitSignal(child)).toBe('SIGKILL');
    expect(x.tweets.filter((t) => t.sent === 'Crash one')).toHaveLength(1);
    expect((await h.row(post.id)).status).toBe('publishing');

    await releaseDeadWorkersJob(server.pool, post.id);
    expect(await h.runJob(post, 2)).toBe('published');

    const row = await h.row(post.id);
    const made = x.tweets.filter((t) => t.sent.startsWith('Crash'));
    expect(made.map((t) => t.sent)).toEqual(['Crash one', 'Crash two']);
    expect(row.external_post_id).toBe(made[0]!.id);
    expect(made[1]!.replyTo).toBe(made[0]!.id);
    // Found by reading the account's posts first, not by a second POST that X refused.
    expect(x.requests.filter((r) => r.method === 'POST' && r.path === '/2/tweets')).toHaveLength(2);
    expect(x.schemaViolations).toEqual([]);
  }, 60_000);
});

describe('a worker killed between two segments of a video', () => {
  it('the retried job appends only the rest to the same media id, and posts once', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sps-xcrash-'));
    try {
      const clip = path.join(dir, 'heavy.mp4');
      await makeHeavyClip(clip);
      const segments = Math.ceil(statSync(clip).size / SEGMENT_BYTES);
      expect(segments).toBeGreaterThanOrEqual(3);
      const { key } = await h.connectBrand();
      const asset = await uploadMediaFile(server, key, clip, 'heavy.mp4');
      const post = await h.schedule(key, { body: 'Crash mid-upload', asset_ids: [asset.id] });
      const media = x.media.size;
      let child: ChildProcess | undefined;
      // The worker dies as it sends the third segment, which X never takes.
      x.onAppend = (_id, segment) => {
        if (segment !== 2) return undefined;
        x.onAppend = undefined;
        child?.kill('SIGKILL');
        return 'drop';
      };
      child = await startWorker();
      await publishNow(server.pool, post.id);
      expect(await exitSignal(child)).toBe('SIGKILL');
      expect((await h.row(post.id)).status).toBe('publishing');

      await releaseDeadWorkersJob(server.pool, post.id);
      expect(await h.runJob(post, 2)).toBe('published');
      const row = await h.row(post.id);
      const made = x.tweets.filter((t) => t.sent === 'Crash mid-upload');
      expect(made).toHaveLength(1);
      expect(row.external_post_id).toBe(made[0]!.id);
      // One upload opened, each segment taken once, in order, on the id the dead worker opened.
      expect(x.media.size - media).toBe(1);
      const id = made[0]!.mediaIds[0]!;
      expect(x.appends.filter((a) => a.mediaId === id).map((a) => a.segment)).toEqual(
        Array.from({ length: segments }, (_, i) => i),
      );
      expect(x.schemaViolations).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
