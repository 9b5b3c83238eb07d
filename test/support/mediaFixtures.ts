// Small real media made by the ffmpeg from npm (a moving test pattern with a tone, a tone
// alone), and their upload through the chunked upload routes, as a client sends them.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { call } from './server.ts';

const run = promisify(execFile);

/** An H.264 test pattern, 640×360 at 25 fps, with a 1 kHz tone unless `silent`. */
export async function makeTestClip(file: string, seconds: number, opts: { silent?: boolean } = {}) {
  await run(ffmpegInstaller.path, [
    ...['-y', '-loglevel', 'error'],
    ...['-f', 'lavfi', '-i', `testsrc=size=640x360:rate=25:d=${seconds}`],
    ...(opts.silent ? [] : ['-f', 'lavfi', '-i', `sine=frequency=1000:duration=${seconds}`]),
    ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p'],
    ...(opts.silent ? [] : ['-c:a', 'aac', '-shortest']),
    file,
  ]);
}

/**
 * A silent H.264 clip of about 4 MB for one second (lossless, with noise that does not
 * compress), for uploads a platform takes in several segments.
 */
export async function makeHeavyClip(file: string) {
  await run(ffmpegInstaller.path, [
    ...['-y', '-loglevel', 'error'],
    ...['-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=10:d=1'],
    ...['-vf', 'noise=alls=60:allf=t', '-c:v', 'libx264', '-pix_fmt', 'yuv420p'],
    ...['-qp', '0', '-preset', 'ultrafast', file],
  ]);
}

/** A WAV of a 440 Hz tone. */
export async function makeTone(file: string, seconds: number) {
  await run(ffmpegInstaller.path, [
    ...['-y', '-loglevel', 'error', '-f', 'lavfi'],
    ...['-i', `sine=frequency=440:duration=${seconds}`, file],
  ]);
}

/** Uploads a small video or audio file in one part of a chunked upload; the asset. */
export async function uploadMediaFile(
  server: { baseUrl: string },
  key: string,
  file: string,
  filename: string,
): Promise<{ id: string; kind: string; duration_s: number }> {
  const bytes = await readFile(file);
  const session = await call(server, 'POST', '/v1/assets/upload/init', {
    key,
    body: { filename, size_bytes: bytes.length },
  });
  if (session.status !== 200) throw new Error(`init: ${session.status}`);
  const { upload_id } = session.body;
  const put = await fetch(
    `${server.baseUrl}/v1/assets/upload/part?upload_id=${upload_id}&index=0`,
    {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(bytes),
    },
  );
  if (put.status !== 200) throw new Error(`part: ${put.status}`);
  const done = await call(server, 'POST', '/v1/assets/upload/finish', {
    key,
    body: { upload_id, parts: 1 },
  });
  if (done.status !== 201) throw new Error(`finish: ${done.status} ${JSON.stringify(done.body)}`);
  return done.body;
}
