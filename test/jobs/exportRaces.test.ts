// What an export stores commits with its job's success, or not at all: an export whose design
// changed during the encode, or whose attempt another worker overtook (its worker was thought
// dead), keeps no asset, leaves the posts as they were, and removes its stored file.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPageImageCache } from '../../core/designs/service.ts';
import { type ProgressReport, runJobAttempt, startJob } from '../../core/jobs/service.ts';
import { mediaTools } from '../../core/media/tools.ts';
import { exportVideo, type VideoExportDeps } from '../../core/video/service.ts';
import { createRenderPool } from '../../render/renderPool.ts';
import { makeTestClip, uploadMediaFile } from '../support/mediaFixtures.ts';
import { useService } from '../support/service.ts';
import { makeVideoDesign } from '../support/videoDesign.ts';

// No worker: the test runs each attempt itself.
const svc = useService({ account: { scopes: ['read', 'publish', 'media', 'generate'] } });
let deps: VideoExportDeps;
let dir: string;
let clipId: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sps-export-races-'));
  await makeTestClip(path.join(dir, 'clip.mp4'), 1);
  clipId = (await uploadMediaFile(svc.server, svc.key, path.join(dir, 'clip.mp4'), 'clip.mp4')).id;
  deps = {
    pool: svc.server.pool,
    storage: svc.storage,
    renderer: createRenderPool({ threads: 1 }),
    images: createPageImageCache(),
    tools: mediaTools({ ffmpegPath: undefined, ffprobePath: undefined, ffmpegTimeoutMs: 60_000 }),
    encodeTimeoutMs: 60_000,
  };
}, 60_000);
afterAll(async () => {
  await deps?.renderer.close();
  await deps?.images.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A one-second video design with a draft post showing it, and an export job for it. */
async function exportable() {
  const { pool } = svc.server;
  const design = await makeVideoDesign(pool, svc.acct, {
    canvas: { type: 'video', aspect: 'square', duration_s: 1, fps: 24 },
    layers: [{ kind: 'video', asset_id: clipId, clip_id: 'c' }],
  });
  const { rows } = await pool.query<{ id: string }>(
    `insert into posts (account_id, brand_id, platform, kind, body, design_id)
     values ($1, $2, 'mastodon', 'video', 'x', $3) returning id::text`,
    [svc.acct.accountId, svc.acct.brandId, design.id],
  );
  const { job } = await startJob(
    pool,
    { accountId: svc.acct.accountId, kind: 'video_export', subject: `design:${design.id}@1` },
    async () => undefined,
  );
  return { design, postId: rows[0]!.id, jobId: job.job_id };
}

/** Runs attempt 1 of the export, doing `meanwhile` once it reaches the storing stage. */
async function attempt(d: Awaited<ReturnType<typeof exportable>>, meanwhile: () => Promise<void>) {
  const request = { job_id: d.jobId, design_id: d.design.id, layout_version: 1 };
  return runJobAttempt(
    svc.server.pool,
    d.jobId,
    { number: 1, max: 3 },
    (report, finish) => {
      const watched: ProgressReport = async (progress, stage) => {
        if (stage === 'storing') await meanwhile();
        await report(progress, stage);
      };
      return exportVideo(deps, request, watched, finish);
    },
    (err) => String(err),
  );
}

async function stateOf(d: Awaited<ReturnType<typeof exportable>>) {
  const { rows } = await svc.server.pool.query(
    `select (select count(*)::int from assets where account_id = $1 and kind = 'video'
               and filename like 'design-%') as exports,
            (select count(*)::int from post_assets where post_id = $2) as attached,
            (select row_to_json(j) from (select status, attempts, error from jobs where id = $3) j)
              as job`,
    [svc.acct.accountId, d.postId, d.jobId],
  );
  const folder = path.join(svc.server.config.dataDir, 'media', 'exports', svc.acct.accountId);
  return { ...rows[0], files: existsSync(folder) ? readdirSync(folder).length : 0 };
}

describe('an export whose stored result may no longer count', () => {
  it('commits the asset, the post and the job together when nothing changed', async () => {
    const d = await exportable();
    const before = await stateOf(d);
    expect(await attempt(d, async () => undefined)).toBe('succeeded');
    const after = await stateOf(d);
    expect(after.exports - before.exports).toBe(1);
    expect(after.attached).toBe(1);
    expect(after.job).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(after.files - before.files).toBe(1);
  }, 60_000);

  it('fails, keeping no asset, when the design changed during the encode', async () => {
    const d = await exportable();
    const before = await stateOf(d);
    const outcome = await attempt(d, async () => {
      await svc.server.pool.query(
        'update designs set layout_version = layout_version + 1 where id = $1',
        [d.design.id],
      );
    });
    expect(outcome).toBe('failed');
    const after = await stateOf(d);
    expect(after.job.status).toBe('failed');
    expect(after.job.error).toMatch(/design changed while it was exported .*export it again/);
    expect(after).toMatchObject({
      exports: before.exports,
      attached: 0,
      files: before.files,
    });
  }, 60_000);

  it('fails before copying anything when its media add up to more than the bound', async () => {
    const d = await exportable();
    const before = await stateOf(d);
    const request = { job_id: d.jobId, design_id: d.design.id, layout_version: 1 };
    const outcome = await runJobAttempt(
      svc.server.pool,
      d.jobId,
      { number: 1, max: 3 },
      (report, finish) => exportVideo({ ...deps, maxMediaBytes: 1000 }, request, report, finish),
      (err) => String(err),
    );
    expect(outcome).toBe('failed');
    const after = await stateOf(d);
    expect(after.job.error).toMatch(
      /add up to [\d.]+ [KM]B; at most 1000 bytes of media go into one video/,
    );
    expect(after).toMatchObject({ exports: before.exports, attached: 0, files: before.files });
  }, 60_000);

  it('stores nothing when another attempt overtook this one', async () => {
    const d = await exportable();
    const before = await stateOf(d);
    // Another worker took the job up as attempt 2 (this one's worker was thought dead).
    const outcome = await attempt(d, async () => {
      await svc.server.pool.query('update jobs set attempts = 2 where id = $1', [d.jobId]);
    });
    expect(outcome).toBe('skipped');
    const after = await stateOf(d);
    expect(after.job).toMatchObject({ status: 'running', attempts: 2 });
    expect(after).toMatchObject({ exports: before.exports, attached: 0, files: before.files });
  }, 60_000);
});
