// A real MP4 of random noise, made by ffmpeg from npm: noise compresses badly, so the file is
// about 10 MB a second (640x360, 25 fps), big enough to need several upload chunks.
import { execFile } from 'node:child_process';
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
