// One still frame of a video, as PNG bytes, by ffmpeg through the safe runner (for video
// thumbnails). A larger frame is scaled down to fit 640 px: the thumbnail is 320, and a 4K frame as
// PNG would cost tens of megabytes for nothing.
import { stat } from 'node:fs/promises';
import { type MediaTools, runMediaTool, safeInput } from './tools.ts';

const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** ffmpeg ran to the end but wrote no frame (a video stream with nothing it could decode). */
export class NoFrame extends Error {
  constructor() {
    super('ffmpeg decoded no frame');
    this.name = 'NoFrame';
  }
}

/** ffmpeg's arguments up to the output: one frame at `atS`, at most `maxPx` on each side. */
const oneFrame = (file: string, atS: number, maxPx: number) => [
  '-nostdin',
  '-v',
  'error',
  ...safeInput(file, { seekS: atS }),
  '-an',
  '-sn',
  '-dn',
  '-frames:v',
  '1',
  '-vf',
  `scale=w='min(${maxPx},iw)':h='min(${maxPx},ih)':force_original_aspect_ratio=decrease`,
];

export async function videoFrame(
  tools: MediaTools,
  file: string,
  atSeconds: number,
): Promise<Buffer> {
  const png = await runMediaTool(
    tools.ffmpegPath,
    [...oneFrame(file, atSeconds, 640), '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1'],
    { timeoutMs: tools.timeoutMs, maxOutputBytes: MAX_FRAME_BYTES },
  );
  if (!png.length) throw new NoFrame();
  return png;
}

/** The longest side of a frame drawn in a design: a story's height, with room to crop. */
const DESIGN_FRAME_PX = 2048;

/**
 * Writes a video's frame at `atS` to `out` as a PNG, at most DESIGN_FRAME_PX on its longer
 * side: a design's photo slot showing a frame (core/designs/pageImages.ts).
 */
export const frameGrabber =
  (tools: MediaTools) =>
  (video: string, atS: number, out: string, timeoutMs: number): Promise<void> =>
    oneGrabAtATime(() => grab(tools, video, atS, out, timeoutMs));

// One frame grab at a time per process: each decodes a whole frame of its video (up to 8K),
// so several at once from one busy account would hold gigabytes together.
let grabbing: Promise<unknown> = Promise.resolve();
function oneGrabAtATime<T>(work: () => Promise<T>): Promise<T> {
  const turn = grabbing.then(work, work);
  grabbing = turn.catch(() => undefined);
  return turn;
}

async function grab(tools: MediaTools, video: string, atS: number, out: string, timeoutMs: number) {
  // Whole milliseconds: ffmpeg reads "1e-9" as no duration at all.
  const at = Math.round(atS * 1000) / 1000;
  await runMediaTool(
    tools.ffmpegPath,
    [...oneFrame(video, at, DESIGN_FRAME_PX), '-y', out],
    // The frame goes to `out`; nothing is written to stdout.
    { timeoutMs: Math.min(tools.timeoutMs, timeoutMs), maxOutputBytes: 64 * 1024 },
  );
  if (!(await stat(out).catch(() => undefined))?.size) throw new NoFrame();
}
