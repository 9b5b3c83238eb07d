// A video worker killed (SIGKILL) mid-export: its ffmpeg dies with it
// instead of encoding on, and the next worker to start removes the dead one's working folder
// (never a live process's).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotifications } from '../../core/db/notifications.ts';
import { jobStatus } from '../../core/jobs/service.ts';
import { startVideoExport } from '../../core/video/service.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { childrenOf, isRunning, type Proc } from '../support/procTable.ts';
import { makeAccount, makeKey } from '../support/server.ts';
import { useServer } from '../support/service.ts';
import { makeVideoDesign } from '../support/videoDesign.ts';
import { followJob, jobEnded, waitFor } from '../support/wait.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const server = useServer();
/** The workers' temp directory (TMPDIR), where their working folders are. */
let tmp: string;
const workers: ChildProcess[] = [];
let ffmpeg: Proc | undefined;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'sps-export-kill-'));
});
afterAll(() => {
  for (const w of workers) w.kill('SIGKILL');
  // Without the fix the encode runs on: it must not outlive the test.
  if (ffmpeg && isRunning(ffmpeg)) process.kill(ffmpeg.pid, 'SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

/** A video-pool worker process (test/support/videoWorker.ts), resolved once it runs. */
function startVideoWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'test/support/videoWorker.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: server.db.url,
      DATA_DIR: server.dataDir,
      TMPDIR: tmp,
    },
  });
  workers.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('worker started')) resolve(child);
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${out}`)));
  });
}

/** The process folders (sps-work-<pid>-...) in the workers' temp directory. */
const processFolders = () => readdirSync(tmp).filter((name) => name.startsWith('sps-work-'));

describe('a video worker killed while ffmpeg encodes', () => {
  it('takes its ffmpeg with it, and the next worker removes its working folder', async () => {
    const acct = await makeAccount(server.pool);
    const key = await makeKey(server.pool, acct.accountId, ['read', 'media']);
    await makeTestClip(path.join(tmp, 'clip.mp4'), 10);
    const clip = await uploadMediaFile(server, key, path.join(tmp, 'clip.mp4'), 'clip.mp4');
    // Two minutes of full-HD story, a moving clip in every window: an encode far longer than
    // this test waits for anything.
    const layers = Array.from({ length: 12 }, (_, i) => ({
      kind: 'video' as const,
      asset_id: clip.id,
      start_s: i * 10,
      end_s: (i + 1) * 10,
    }));
    const design = await makeVideoDesign(server.pool, acct, {
      canvas: { type: 'video', aspect: 'story', duration_s: 120, fps: 30 },
      layers,
    });
    const notifications = createNotifications(server.pool);
    const deps = { pool: server.pool, notifications, publicBaseUrl: server.baseUrl };
    try {
      const worker = await startVideoWorker();
      const job = await startVideoExport(
        deps,
        {
          ...acct,
          selectedBrandId: acct.brandId,
          plan: 'plus',
          credential: { kind: 'session', id: '1' },
        },
        { design_id: design.id },
      );
      // Killed once its ffmpeg encodes (looked for at least every 5 s: a child starting
      // changes nothing in the job's record).
      const encoding = await followJob(
        (wait_s) => jobStatus(deps, acct, { job_id: job.job_id, wait_s: Math.min(wait_s, 5) }),
        {
          timeoutMs: 240_000,
          what: "the export's ffmpeg to encode",
          until: (now) => {
            [ffmpeg] = childrenOf(worker.pid!, 'ffmpeg');
            return jobEnded(now) || (now.stage === 'encoding' && ffmpeg);
          },
        },
      );
      expect(encoding.status).not.toMatch(/failed|succeeded/);
      const [dead] = processFolders();
      expect(dead).toMatch(new RegExp(`^sps-work-${worker.pid}-`));
      expect(readdirSync(path.join(tmp, dead!))).toEqual([expect.stringMatching(/^export-/)]);

      worker.kill('SIGKILL');
      await new Promise((resolve) => worker.once('exit', resolve));
      // Gone shortly after its worker: polled, not timed.
      await waitFor(async () => !isRunning(ffmpeg!), { timeoutMs: 20_000 }).catch(() => undefined);
      expect(isRunning(ffmpeg!)).toBe(false);

      // A live process's folder (this test's own) stays; the dead worker's goes.
      const live = `sps-work-${process.pid}-livex1`;
      mkdirSync(path.join(tmp, live, 'export-abc'), { recursive: true });
      const restarted = await startVideoWorker();
      expect(existsSync(path.join(tmp, dead!))).toBe(false);
      expect(existsSync(path.join(tmp, live, 'export-abc'))).toBe(true);
      const left = processFolders();
      expect(left).toHaveLength(2);
      expect(left).toContain(live);
      expect(left.find((f) => f !== live)).toMatch(new RegExp(`^sps-work-${restarted.pid}-`));
    } finally {
      await notifications.close();
    }
  }, 300_000);
});
