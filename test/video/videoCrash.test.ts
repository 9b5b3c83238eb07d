// A video worker killed (SIGKILL) mid-export: another worker's sweeper releases the job, the
// export runs again, and the account ends with exactly one exported video and a succeeded job.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { createNotifications } from '../../core/db/notifications.ts';
import { jobStatus } from '../../core/jobs/service.ts';
import { createLogger } from '../../core/logger.ts';
import { storageFor } from '../../core/storage/storage.ts';
import { startVideoExport } from '../../core/video/service.ts';
import { startWorker } from '../../workers/index.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { makeAccount, makeKey } from '../support/server.ts';
import { useServer } from '../support/service.ts';
import { makeVideoDesign } from '../support/videoDesign.ts';
import { followJob, jobEnded } from '../support/wait.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const server = useServer();
let dir: string;
let child: ChildProcess | undefined;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sps-video-crash-'));
});
afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('a video worker killed mid-export', () => {
  it('ends with exactly one exported asset and a succeeded job', async () => {
    const acct = await makeAccount(server.pool);
    const key = await makeKey(server.pool, acct.accountId, ['read', 'media']);
    await makeTestClip(path.join(dir, 'clip.mp4'), 4);
    const clip = await uploadMediaFile(server, key, path.join(dir, 'clip.mp4'), 'clip.mp4');
    const design = await makeVideoDesign(server.pool, acct, {
      canvas: { type: 'video', aspect: 'square', duration_s: 6, fps: 24 },
      layers: [{ kind: 'video', asset_id: clip.id }],
    });
    const notifications = createNotifications(server.pool);
    const deps = { pool: server.pool, notifications, publicBaseUrl: server.baseUrl };
    const caller = { ...acct, selectedBrandId: acct.brandId, plan: 'plus' as const };
    try {
      child = spawn(process.execPath, [path.join(ROOT, 'test/support/videoWorker.ts')], {
        env: { ...process.env, DATABASE_URL: server.db.url, DATA_DIR: server.dataDir },
      });
      const job = await startVideoExport(
        deps,
        { ...caller, credential: { kind: 'session', id: '1' } },
        {
          design_id: design.id,
        },
      );
      // Killed once it is encoding, some way in (a job that finished before it could be
      // killed fails the test rather than looping).
      const readJob = (wait_s: number) => jobStatus(deps, acct, { job_id: job.job_id, wait_s });
      const going = await followJob(readJob, {
        timeoutMs: 240_000,
        what: 'the export to get going',
        until: (now) => jobEnded(now) || (now.stage === 'encoding' && now.progress > 0.2),
      });
      expect(going.status).not.toMatch(/failed|succeeded/);
      child.kill('SIGKILL');
      await new Promise((resolve) => child!.once('exit', resolve));

      const survivor = await startWorker({
        pool: server.pool,
        concurrency: 1,
        pools: ['video'],
        log: createLogger('silent'),
        storage: storageFor(loadConfig({ DATABASE_URL: server.db.url, DATA_DIR: server.dataDir })),
        liveness: { heartbeatMs: 200, staleAfterMs: 1000 },
      });
      try {
        const done = await followJob(readJob, { timeoutMs: 240_000, what: 'the export' });
        expect(done).toMatchObject({ status: 'succeeded', attempts: 2 });
      } finally {
        await survivor.stop();
      }
      const { rows } = await server.pool.query<{ id: string }>(
        `select id from assets where account_id = $1 and kind = 'video' and id <> $2`,
        [acct.accountId, clip.id],
      );
      expect(rows).toHaveLength(1);
    } finally {
      await notifications.close();
    }
  }, 300_000);
});
