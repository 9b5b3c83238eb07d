// Video export: a 10 s 1080×1920 timeline (one clip, two texts with fades, one
// image, an audio track) exported by the service, beside a hand-written ffmpeg command doing
// the same composition with the same encoder settings on the same stills; the worker
// process's peak memory; and webhook delivery delay (commit → a loopback receiver) while two
// exports run, beside the same delay with none. Targets: export ≤ 1.2× the hand-written
// command; delivery delay while exporting ≤ 2× idle.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { createNotifications } from '../core/db/notifications.ts';
import { withTransaction } from '../core/db/pool.ts';
import { type Layout, VideoLayout, type VideoLayoutInput } from '../core/designs/schema.ts';
import { storeDesign } from '../core/designs/service.ts';
import { jobStatus } from '../core/jobs/service.ts';
import { mediaTools } from '../core/media/tools.ts';
import { startVideoExport } from '../core/video/service.ts';
import { queueEventDeliveries } from '../core/webhooks/delivery.ts';
import { type BenchService, memoryOf } from './support.ts';

const run = promisify(execFile);
const tools = mediaTools({
  ffmpegPath: undefined,
  ffprobePath: undefined,
  ffmpegTimeoutMs: 600_000,
});
const W = 1080;
const H = 1920;

async function upload(svc: BenchService, key: string, file: string, mime: string) {
  const bytes = await import('node:fs/promises').then((fs) => fs.readFile(file));
  if (mime.startsWith('image/')) {
    const res = await fetch(`${svc.baseUrl}/v1/assets/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': mime },
      body: new Uint8Array(bytes),
    });
    return ((await res.json()) as { id: string }).id;
  }
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const init = await fetch(`${svc.baseUrl}/v1/assets/upload/init`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ filename: path.basename(file), size_bytes: bytes.length }),
  });
  const { upload_id } = (await init.json()) as { upload_id: string };
  await fetch(`${svc.baseUrl}/v1/assets/upload/part?upload_id=${upload_id}&index=0`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  });
  const done = await fetch(`${svc.baseUrl}/v1/assets/upload/finish`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ upload_id, parts: 1 }),
  });
  return ((await done.json()) as { id: string }).id;
}

/** Commit → arrival of `n` single deliveries, one every 100 ms; sorted delays in ms. */
async function deliveryDelays(svc: BenchService, accountId: string, url: string, n: number) {
  await svc.pool.query('delete from webhook_endpoints where account_id = $1', [accountId]);
  await svc.pool.query(
    `insert into webhook_endpoints (account_id, url, events, secret)
     values ($1, $2, '{post.published}', 'whsec_bench')`,
    [accountId, url],
  );
  const committed = new Map<string, number>();
  const delays: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = await withTransaction(svc.pool, async (tx) => {
      const { rows } = await tx.query<{ id: string; account_id: string; type: string }>(
        `insert into events (account_id, type, body) values ($1, 'post.published', $2)
         returning id, account_id, type`,
        [accountId, JSON.stringify({ event: 'post.published', n: i })],
      );
      await queueEventDeliveries(tx, rows);
      return rows[0]!.id;
    });
    committed.set(String(i), performance.now());
    void id;
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 2_000));
  for (const [i, at] of committed) {
    const arrived = arrivals.get(i);
    if (arrived !== undefined) delays.push(arrived - at);
  }
  arrivals.clear();
  return delays.sort((a, b) => a - b);
}
const arrivals = new Map<string, number>();

const median = (xs: number[]) => xs[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function benchVideo(svc: BenchService) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sps-bench-video-'));
  const notifications = createNotifications(svc.pool);
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      arrivals.set(String((JSON.parse(body) as { n: number }).n), performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const account = await createAccount(svc.pool, {
      email: `bench-video-${Date.now()}@example.com`,
      password: 'bench password',
      plan: 'business',
    });
    await setBudget(svc.pool, account.accountId, 100_000_000);
    const { key } = await createApiKey(svc.pool, account.accountId, {
      scopes: ['read', 'publish', 'media', 'generate'],
    });
    const clip = path.join(dir, 'clip.mp4');
    const tone = path.join(dir, 'tone.wav');
    const photo = path.join(dir, 'photo.png');
    await run(tools.ffmpegPath, [
      ...['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30:d=12'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=1000:duration=12', '-shortest'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', clip],
    ]);
    await run(tools.ffmpegPath, [
      '-y',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=12',
      tone,
    ]);
    await sharp({ create: { width: 600, height: 600, channels: 3, background: '#2255aa' } })
      .png()
      .toFile(photo);
    const clipId = await upload(svc, key, clip, 'video/mp4');
    const toneId = await upload(svc, key, tone, 'audio/wav');
    const photoId = await upload(svc, key, photo, 'image/png');

    const text = (t: string, y: number, start: number, end: number) => ({
      kind: 'text' as const,
      text: t,
      x: 80,
      y,
      w: 920,
      size: 88,
      weight: 'bold' as const,
      color: '#ffffff',
      start_s: start,
      end_s: end,
      enter: { kind: 'fade' as const, duration_s: 0.5 },
      exit: { kind: 'fade' as const, duration_s: 0.5 },
    });
    const timeline: VideoLayoutInput = {
      canvas: { type: 'video', aspect: 'story', duration_s: 10, fps: 30 },
      layers: [
        { kind: 'video', asset_id: clipId, clip_id: 'main' },
        text('Our new studio', 1200, 0.5, 5),
        text('Open every day', 1400, 5, 9.5),
        { kind: 'image', asset_id: photoId, x: 390, y: 200, w: 300, h: 300, start_s: 1, end_s: 9 },
      ],
      audio: { asset_id: toneId, volume: 0.8, fade_out_s: 1 },
    };
    const design = async () =>
      (
        await storeDesign(
          svc.pool,
          { accountId: account.accountId, plan: 'business' },
          {
            from: 'layout',
            brandId: account.brand.id,
            template: 'blank',
            layout: VideoLayout.parse(timeline) as unknown as Layout,
          },
        )
      ).id;
    const caller = {
      accountId: account.accountId,
      selectedBrandId: account.brand.id,
      plan: 'business' as const,
      credential: { kind: 'session' as const, id: 'bench' },
    };
    const deps = { pool: svc.pool, notifications, publicBaseUrl: svc.baseUrl };
    const exportAndWait = async () => {
      const job = await startVideoExport(deps, caller, { design_id: await design() });
      let now = job;
      // A job no worker takes must end the bench with a reason, not hang it.
      const deadline = Date.now() + 600_000;
      while (now.status !== 'succeeded' && now.status !== 'failed') {
        if (Date.now() > deadline) throw new Error(`export still ${now.status} after 10 min`);
        now = await jobStatus(deps, caller, { job_id: job.job_id, wait_s: 20 });
      }
      if (now.status === 'failed') throw new Error(`export failed: ${now.error}`);
      return now;
    };

    // The service's export and the same composition by hand, taken in turns three times (the
    // first export also starts the worker's render threads).
    const timed = async (work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      return (performance.now() - started) / 1000;
    };
    // By hand, each still is a picture of the text or image alone, placed where it goes (as
    // the service places its stills cut to their drawn pixels).
    const still = async (t: string, name: string) => {
      const file = path.join(dir, name);
      const svg = `<svg width="920" height="110" xmlns="http://www.w3.org/2000/svg"><text x="0" y="88" font-size="88" font-weight="bold" fill="#fff">${t}</text></svg>`;
      await sharp(Buffer.from(svg)).trim({ background: '#00000000', threshold: 0 }).toFile(file);
      return file;
    };
    const s1 = await still('Our new studio', 's1.png');
    const s2 = await still('Open every day', 's2.png');
    const s3 = path.join(dir, 's3.png');
    await sharp(photo).resize(300, 300).png().toFile(s3);
    const handArgs = [
      ...['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', `color=c=black:s=${W}x${H}:r=30:d=10`],
      ...['-t', '10', '-i', clip],
      ...['-loop', '1', '-framerate', '30', '-t', '4.5', '-i', s1],
      ...['-loop', '1', '-framerate', '30', '-t', '4.5', '-i', s2],
      ...['-loop', '1', '-framerate', '30', '-t', '8', '-i', s3],
      ...['-i', tone],
      '-filter_complex',
      [
        `[1:v]fps=30,scale=${W}:${H}:force_original_aspect_ratio=increase,crop=${W}:${H},setsar=1[c]`,
        '[0:v][c]overlay=eof_action=pass[b0]',
        '[2:v]format=rgba,setpts=PTS-STARTPTS+0.5/TB,fade=t=in:st=0.5:d=0.5:alpha=1,fade=t=out:st=4.5:d=0.5:alpha=1[t1]',
        '[3:v]format=rgba,setpts=PTS-STARTPTS+5/TB,fade=t=in:st=5:d=0.5:alpha=1,fade=t=out:st=9:d=0.5:alpha=1[t2]',
        '[4:v]setpts=PTS-STARTPTS+1/TB[t3]',
        "[b0][t1]overlay=x=80:y=1200:eof_action=pass:enable='between(t,0.5,5)'[b1]",
        "[b1][t2]overlay=x=80:y=1400:eof_action=pass:enable='between(t,5,9.5)'[b2]",
        "[b2][t3]overlay=x=390:y=200:eof_action=pass:enable='between(t,1,9)',format=yuv420p[v]",
        '[1:a]atrim=0:10[a1]',
        '[5:a]volume=0.8[a2]',
        '[a1][a2]amix=inputs=2:duration=first,volume=2,afade=t=out:st=9:d=1[a]',
      ].join(';'),
      ...['-map', '[v]', '-map', '[a]', '-r', '30', '-c:v', 'libx264', '-preset', 'veryfast'],
      ...['-crf', '20', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', '-ar', '48000'],
      ...['-movflags', '+faststart', '-t', '10', path.join(dir, 'hand.mp4')],
    ];
    const serviceRuns: number[] = [];
    const handRuns: number[] = [];
    for (let i = 0; i < 3; i++) {
      serviceRuns.push(await timed(exportAndWait));
      handRuns.push(await timed(() => run(tools.ffmpegPath, handArgs)));
    }
    const serviceS = [...serviceRuns].sort((a, b) => a - b)[1]!;
    const handS = [...handRuns].sort((a, b) => a - b)[1]!;

    // Delivery delay with nothing else running, then while two exports run.
    const idle = await deliveryDelays(svc, account.accountId, hookUrl, 40);
    const exports = Promise.all([exportAndWait(), exportAndWait()]);
    await new Promise((r) => setTimeout(r, 1_500));
    const busy = await deliveryDelays(svc, account.accountId, hookUrl, 40);
    await exports;
    const memory = await memoryOf(process.pid);

    console.log(
      'Video export: 10 s 1080×1920 at 30 fps (a clip, two texts with fades, an image, an audio track)',
    );
    console.log(
      `  service export      median ${serviceS.toFixed(1)} s of ${serviceRuns.map((x) => x.toFixed(1)).join(', ')} (fetching, stills, encoding, storing), hand-written ffmpeg median ${handS.toFixed(1)} s of ${handRuns.map((x) => x.toFixed(1)).join(', ')}: ${(serviceS / handS).toFixed(2)}× (target ≤ 1.2×)`,
    );
    console.log(
      `  delivery delay      idle median ${median(idle).toFixed(0)} ms (${idle.length}), during two exports median ${median(busy).toFixed(0)} ms (${busy.length}): ${(median(busy) / median(idle)).toFixed(2)}× (target ≤ 2×)`,
    );
    console.log(
      `  bench process peak  ${Math.round(memory.peak / 2 ** 20)} MB resident (API and workers in one process, as npm start; ffmpeg runs in its own process)`,
    );
    return { ratio: serviceS / handS, delay: median(busy) / median(idle) };
  } finally {
    await notifications.close();
    await new Promise<void>((r) => receiver.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
}
