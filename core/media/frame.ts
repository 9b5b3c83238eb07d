// One still frame of a video, as PNG bytes, by ffmpeg from npm (for video thumbnails).
import { PassThrough } from 'node:stream';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffmpeg from 'fluent-ffmpeg';

ffmpeg.setFfmpegPath(ffmpegInstaller.path);

export function videoFrame(file: string, atSeconds: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    out.on('end', () =>
      chunks.length ? resolve(Buffer.concat(chunks)) : reject(new Error('no frame decoded')),
    );
    ffmpeg(file)
      .seekInput(atSeconds)
      .frames(1)
      .outputOptions(['-f', 'image2pipe', '-vcodec', 'png'])
      .on('error', reject)
      .pipe(out, { end: true });
  });
}
