// Real videos made by ffmpeg from npm: an MP4 of random noise (noise compresses badly, so the
// file is about 10 MB a second at 640x360, 25 fps: big enough to need several upload chunks),
// and a small clip of ffmpeg's test pattern.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';

export async function makeNoiseVideo(file: string, seconds: number): Promise<void> {
  await promisify(execFile)(ffmpegInstaller.path, [
    '-y',
    '-loglevel',
    'error',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'yuv420p',
    '-s',
    '640x360',
    '-r',
    '25',
    '-t',
    String(seconds),
    '-i',
    '/dev/urandom',
    '-c:v',
    'mpeg4',
    '-q:v',
    '2',
    file,
  ]);
}

/**
 * One second of ffmpeg's test pattern (160x120, 10 fps, MPEG-4): a small valid video, written
 * to `file` and read back, or without one made as a fragmented MP4 (which can be piped).
 */
export async function testPatternVideo(file?: string): Promise<Buffer> {
  const input = [
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=1:size=160x120:rate=10',
  ];
  const encode = [...input, '-c:v', 'mpeg4'];
  if (file) {
    await promisify(execFile)(ffmpegInstaller.path, [...encode, file]);
    return readFile(file);
  }
  const { stdout } = await promisify(execFile)(
    ffmpegInstaller.path,
    [...encode, '-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov', 'pipe:1'],
    { encoding: 'buffer', maxBuffer: 50 * 1024 * 1024 },
  );
  return stdout;
}
