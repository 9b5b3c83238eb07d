// Raw image upload throughput (MB/s) beside a bare Fastify route that streams the same bytes
// to disk, and the API process's peak memory during a chunked video upload.
// Targets: raw upload >= 0.5 of the bare route; peak memory under 300 MB for 200 MB.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import sharp from 'sharp';
import { createAccount, setBudget } from '../core/accounts/service.ts';
import { createApiKey } from '../core/apikeys/service.ts';
import { makeNoiseVideo } from '../test/support/noiseVideo.ts';
import {
  type BenchService,
  type LoadResult,
  load,
  memoryOf,
  spawnServiceProcess,
} from './support.ts';

async function mediaKey(svc: BenchService) {
  const account = await createAccount(svc.pool, {
    email: `bench-media-${Date.now()}@example.com`,
    password: 'bench password',
    plan: 'business',
  });
  await setBudget(svc.pool, account.accountId, 100_000_000);
  return (await createApiKey(svc.pool, account.accountId, { scopes: ['read', 'media'] })).key;
}

/** A phone-photo-sized JPEG (about 3 MB): noise compresses badly. */
const photo = () =>
  sharp(randomBytes(2000 * 1500 * 3), { raw: { width: 2000, height: 1500, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();

export async function benchRawUpload(svc: BenchService, seconds: number) {
  const key = await mediaKey(svc);
  const body = await photo();
  // The bare route keeps what it writes, as the service does: bytes written and deleted at
  // once never leave the page cache, which would flatter the bare route.
  const bareDir = await mkdtemp(path.join(os.tmpdir(), 'sps-bare-'));
  const bare = Fastify();
  bare.addContentTypeParser(/^image\//, (_req, payload, done) => done(null, payload));
  bare.post('/upload', async (req, reply) => {
    const file = path.join(bareDir, randomBytes(6).toString('hex'));
    await pipeline(req.body as NodeJS.ReadableStream, createWriteStream(file));
    return reply.code(201).send({ ok: true });
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/upload`;
  const upload = {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/jpeg' },
    body: body as unknown as string,
    connections: 16,
  };
  await load(bareUrl, { ...upload, seconds: 1 });
  await load(`${svc.baseUrl}/v1/assets/upload`, { ...upload, seconds: 1 });
  // Each route runs twice, alternating, with dirty pages flushed in between, and keeps its
  // better run: the page cache writing back one run's gigabytes must not slow the next.
  const flush = () => promisify(execFile)('sync');
  const runs: Record<'bare' | 'ours', LoadResult[]> = { bare: [], ours: [] };
  for (let round = 0; round < 2; round++) {
    await flush();
    runs.bare.push(await load(bareUrl, { ...upload, seconds }));
    await flush();
    runs.ours.push(await load(`${svc.baseUrl}/v1/assets/upload`, { ...upload, seconds }));
  }
  const best = (r: LoadResult[]) => r.reduce((a, b) => (b.rps > a.rps ? b : a));
  const bareRun = best(runs.bare);
  const ours = best(runs.ours);
  await bare.close();
  await rm(bareDir, { recursive: true, force: true });
  const mb = body.length / 1024 / 1024;
  console.log(`Raw image upload (${mb.toFixed(1)} MB JPEG, 16 connections)`);
  console.log(
    `  bare streaming route  ${(bareRun.rps * mb).toFixed(1)} MB/s  p99 ${bareRun.p99} ms`,
  );
  console.log(
    `  POST /v1/assets/upload ${(ours.rps * mb).toFixed(1)} MB/s  p99 ${ours.p99} ms${ours.non2xx ? ` (non-2xx ${ours.non2xx})` : ''}`,
  );
  console.log(`  ratio                 ${(ours.rps / bareRun.rps).toFixed(2)} (target >= 0.50)`);
  return { ratio: ours.rps / bareRun.rps };
}

/**
 * Uploads a real video of about `megabytes` MB in chunks to an API process of its own
 * (`bin/start.ts api` on the bench database) and reads that process's peak resident memory
 * (VmHWM) from /proc, so the figure is the API's alone.
 */
export async function benchChunkedMemory(svc: BenchService, megabytes = 200) {
  const { child: api, ready } = await spawnServiceProcess(
    svc,
    'api',
    /Server listening at (http:\/\/127\.0\.0\.1:\d+)/,
  );
  const baseUrl = ready[1]!;
  const peakOf = async () => (await memoryOf(api.pid!)).peak;
  try {
    return await chunkedUpload({ ...svc, baseUrl }, megabytes, peakOf);
  } finally {
    api.kill('SIGTERM');
  }
}

async function chunkedUpload(svc: BenchService, megabytes: number, peakOf: () => Promise<number>) {
  const { open, stat } = await import('node:fs/promises');
  const file = path.join(os.tmpdir(), `sps-bench-${process.pid}.mp4`);
  await makeNoiseVideo(file, Math.ceil(megabytes / 10));
  const size = (await stat(file)).size;
  const key = await mediaKey(svc);
  const auth = { authorization: `Bearer ${key}` };
  const baseline = await peakOf();
  const started = Date.now();
  const init = (await (
    await fetch(`${svc.baseUrl}/v1/assets/upload/init`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'bench.mp4', size_bytes: size }),
    })
  ).json()) as { upload_id: string; part_bytes: number; parts: number };
  const handle = await open(file);
  for (let i = 0; i < init.parts; i++) {
    const chunk = Buffer.alloc(Math.min(init.part_bytes, size - i * init.part_bytes));
    await handle.read(chunk, 0, chunk.length, i * init.part_bytes);
    const res = await fetch(
      `${svc.baseUrl}/v1/assets/upload/part?upload_id=${encodeURIComponent(init.upload_id)}&index=${i}`,
      {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        body: chunk,
      },
    );
    if (res.status !== 200) throw new Error(`part ${i}: ${res.status} ${await res.text()}`);
  }
  await handle.close();
  const done = await fetch(`${svc.baseUrl}/v1/assets/upload/finish`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ upload_id: init.upload_id, parts: init.parts }),
  });
  const asset = (await done.json()) as { duration_s: number; bytes: number };
  const peak = await peakOf();
  await rm(file, { force: true });
  const mb = (n: number) => Math.round(n / 1024 / 1024);
  console.log(
    `Chunked upload of a ${mb(size)} MB video (${init.parts} parts of ${mb(init.part_bytes)} MB)`,
  );
  console.log(
    `  status ${done.status}, duration_s ${asset.duration_s}, ${((Date.now() - started) / 1000).toFixed(1)} s; API process peak RSS ${mb(peak)} MB (${mb(baseline)} MB before; target < 300 MB)`,
  );
  return { peakMb: mb(peak) };
}
