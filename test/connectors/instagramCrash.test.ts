// Exactly once on Instagram across a worker killed with SIGKILL after Instagram published the
// container and before the worker heard of it: the worker process runs the shipped connectors
// (Instagram pointed at the stand-in by INSTAGRAM_API_URL), the stand-in kills it the moment
// it has published, and the retried job finds the container PUBLISHED, reads the media back
// from the account's own and records it instead of publishing again.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeWorkerUtils } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey } from '../../core/connections/credentials.ts';
import { publishNow } from '../support/jobs.ts';
import {
  IG_USER,
  type InstagramHarness,
  instagramHarness,
} from '../support/platforms/instagramHarness.ts';
import { LOOPBACK_OUTBOUND, useServer } from '../support/service.ts';
import { solidPng, uploadImage } from '../support/uploads.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEY_B64 = Buffer.alloc(32, 6).toString('base64');
const KEY = credentialsKey(KEY_B64);
const server = useServer({ env: LOOPBACK_OUTBOUND });
let h: InstagramHarness;

beforeAll(async () => {
  h = await instagramHarness(server, KEY);
  // Containers are FINISHED at their first reading: the worker's poll waits 3 s otherwise.
  h.ig.processingPolls = 0;
});
afterAll(() => h.close());

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
    child = spawn(
      process.execPath,
      [path.join(ROOT, 'test/support/platforms/instagramWorker.ts')],
      {
        env: {
          ...process.env,
          DATABASE_URL: server.db.url,
          INSTAGRAM_API_URL: h.ig.url,
          CREDENTIALS_KEY: KEY_B64,
          DATA_DIR: server.dataDir,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((r) => child!.stdout!.once('data', () => r()));
    await publishNow(server.pool, post.id);
    const signal = await new Promise((r) => child!.once('exit', (_code, sig) => r(sig)));
    expect(signal).toBe('SIGKILL');
    expect(h.ig.media.map((m) => m.caption)).toEqual(['Crash once']);
    expect((await h.row(post.id)).status).toBe('publishing');

    // What the sweeper does for a dead worker: release its job; then the job runs again.
    const { rows } = await server.pool.query(
      'select locked_by from graphile_worker.jobs where key = $1',
      [`publish_post:${post.id}`],
    );
    const utils = await makeWorkerUtils({ pgPool: server.pool });
    await utils.forceUnlockWorkers([rows[0].locked_by]);
    await utils.release();
    expect(await h.runJob(post, 2)).toBe('published');

    const [media] = h.ig.media;
    expect(h.ig.media).toHaveLength(1);
    const row = await h.row(post.id);
    expect(row.external_post_id).toBe(media!.id);
    expect(row.permalink_url).toBe(media!.permalink);
    // One container, published once, then read back from the account's media.
    const sent = (method: string, edge: string) =>
      h.ig.received.filter((r) => r.method === method && r.path === `/v25.0/${IG_USER.id}/${edge}`);
    expect(sent('POST', 'media')).toHaveLength(1);
    expect(sent('POST', 'media_publish')).toHaveLength(1);
    expect(sent('GET', 'media').length).toBeGreaterThan(0);
  }, 60_000);
});
