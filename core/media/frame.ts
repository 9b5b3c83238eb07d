// One still frame of a video, as PNG bytes, by ffmpeg through the safe runner (for video
// thumbnails). A larger frame is scaled down to fit 640 px: the thumbnail is 320, and a 4K frame as
// PNG would cost tens of megabytes for nothing.
import { type MediaTools, runMediaTool, safeInput } from './tools.ts';

const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** ffmpeg ran to the end but wrote no frame (a video stream with nothing it could decode). */
export class NoFrame extends Error {
  constructor() {
    super('ffmpeg decoded no frame');
    this.name = 'NoFrame';
  }
}

export async function videoFrame(
  tools: MediaTools,
  file: string,
  atSeconds: number,
): Promise<Buffer> {
  const png = await runMediaTool(
    tools.ffmpegPath,
    [
      '-nostdin',
      '-v',
      'error',
      ...safeInput(file, { seekS: atSeconds }),
      '-an',
      '-sn',
      '-dn',
      '-frames:v',
      '1',
      '-vf',
      "scale=w='min(640,iw)':h='min(640,ih)':force_original_aspect_ratio=decrease",
      '-f',
      'image2pipe',
      '-vcodec',
      'png',
      'pipe:1',
    ],
    { timeoutMs: tools.timeoutMs, maxOutputBytes: MAX_FRAME_BYTES },
  );
  if (!png.length) throw new NoFrame();
  return png;
}
