// The video composition (render/videoCompose.ts) run by the real ffmpeg from npm on fixtures
// ffmpeg makes here: the output is what platforms take (H.264 yuv420p, AAC, moov first), of
// the composition's size and duration, with each layer inside its time window only, the clip's
// picture, and the sound of the track and the clips (silence when muted).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaTools, safeInput } from '../../core/media/tools.ts';
import {
  type ClipLayer,
  composeArgs,
  posterArgs,
  progressOf,
  type VideoComposition,
  withFilterScript,
} from '../../render/videoCompose.ts';

const run = promisify(execFile);
const tools = mediaTools({
  ffmpegPath: undefined,
  ffprobePath: undefined,
  ffmpegTimeoutMs: 60_000,
});
const W = 360;
const H = 640;
const FPS = 25;
let dir: string;
let clip: string;
let tone: string;
let box: string;
/** Where the still square sits in the frame. */
const BOX = { left: 40, top: 40, width: 100, height: 100 };

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sps-video-'));
  clip = path.join(dir, 'clip.mp4');
  tone = path.join(dir, 'tone.wav');
  box = path.join(dir, 'box.png');
  // A 4 s test pattern (colour bars that move) with a 1 kHz tone, and a 5 s 440 Hz tone.
  await run(tools.ffmpegPath, [
    ...['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=25:d=4'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=1000:duration=4', '-shortest'],
    ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', clip],
  ]);
  await run(tools.ffmpegPath, [
    ...['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=5', tone],
  ]);
  // A still layer: a red square, placed at BOX in the top-left quarter of the frame.
  await sharp({ create: { width: 100, height: 100, channels: 4, background: '#ff0000' } })
    .png()
    .toFile(box);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A composition's frame: W×H at FPS on black, `durationS` long. */
const canvasOf = (durationS: number) => ({
  width: W,
  height: H,
  fps: FPS,
  durationS,
  background: '#000000',
});

const clipLayer = (over: Partial<ClipLayer> = {}): ClipLayer => ({
  type: 'clip',
  file: clip,
  startS: 0,
  endS: 3,
  trimStartS: 0.5,
  fit: 'cover',
  volume: 1,
  muted: false,
  hasAudio: true,
  ...over,
});

/** Renders `c` as exports do: the filter graph read from a file (withFilterScript). */
async function render(c: VideoComposition, name: string) {
  const out = path.join(dir, name);
  const moved = withFilterScript(composeArgs(c, out, safeInput), `${out}.filters`);
  writeFileSync(`${out}.filters`, moved.script);
  const { stdout } = await run(tools.ffmpegPath, moved.args, { maxBuffer: 16 * 1024 * 1024 });
  return { out, progress: stdout };
}

async function probe(file: string) {
  const { stdout } = await run(tools.ffprobePath, [
    ...[
      '-v',
      'error',
      '-show_entries',
      'format=duration:stream=codec_type,codec_name,width,height,pix_fmt',
    ],
    ...['-of', 'json', file],
  ]);
  return JSON.parse(stdout) as {
    format: { duration: string };
    streams: {
      codec_type: string;
      codec_name: string;
      width?: number;
      height?: number;
      pix_fmt?: string;
    }[];
  };
}

/** The frame at `t` seconds as RGB bytes. */
async function frameAt(file: string, t: number): Promise<Buffer> {
  const { stdout } = await run(
    tools.ffmpegPath,
    [
      '-loglevel',
      'error',
      '-ss',
      String(t),
      '-i',
      file,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ],
    { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
  );
  return stdout;
}
const pixel = (frame: Buffer, x: number, y: number) => [
  ...frame.subarray((y * W + x) * 3, (y * W + x) * 3 + 3),
];

/** The mean volume in dB (ffmpeg volumedetect); -91 is digital silence. */
async function meanVolume(file: string): Promise<number> {
  const { stderr } = await run(tools.ffmpegPath, [
    '-i',
    file,
    '-af',
    'volumedetect',
    '-f',
    'null',
    '-',
  ]);
  return Number(/mean_volume: (-?[\d.]+) dB/.exec(stderr)![1]);
}

describe('composeArgs', () => {
  it('composes a clip, a still with fades inside its window, and an audio track', async () => {
    const composition: VideoComposition = {
      ...canvasOf(3),
      layers: [
        clipLayer({ volume: 0.5 }),
        {
          type: 'still',
          file: box,
          box: BOX,
          startS: 1,
          endS: 2,
          enter: { kind: 'fade', durationS: 0.2 },
          exit: { kind: 'fade', durationS: 0.2 },
        },
      ],
      audio: { file: tone, startS: 0, volume: 0.8, fadeInS: 0.5, fadeOutS: 0.5 },
    };
    const { out, progress } = await render(composition, 'full.mp4');

    const info = await probe(out);
    expect(Math.abs(Number(info.format.duration) - 3)).toBeLessThanOrEqual(1 / FPS + 0.03);
    const video = info.streams.find((s) => s.codec_type === 'video')!;
    expect(video).toMatchObject({ codec_name: 'h264', width: W, height: H, pix_fmt: 'yuv420p' });
    expect(info.streams.find((s) => s.codec_type === 'audio')).toMatchObject({ codec_name: 'aac' });
    // +faststart: the index comes before the media data.
    const bytes = readFileSync(out);
    expect(bytes.indexOf('moov')).toBeLessThan(bytes.indexOf('mdat'));

    // The square is there inside its window (at rest), and not before or after it.
    const [r, g, b] = pixel(await frameAt(out, 1.5), 90, 90);
    expect(r).toBeGreaterThan(200);
    expect(g! + b!).toBeLessThan(80);
    for (const t of [0.5, 2.5]) expect(pixel(await frameAt(out, t), 90, 90)[0]).toBeLessThan(200);
    // The clip's picture fills the frame (a test pattern, not the black background).
    const frame = await frameAt(out, 0.5);
    const distinct = new Set<string>();
    for (let y = 0; y < H; y += 40)
      for (let x = 0; x < W; x += 40) distinct.add(pixel(frame, x, y).join());
    expect(distinct.size).toBeGreaterThan(5);

    expect(await meanVolume(out)).toBeGreaterThan(-40);
    expect(progressOf(progress, 3)).toBeCloseTo(1, 1);
  });

  it('has a silent sound track when the clip is muted and there is no track', async () => {
    const still = { type: 'still' as const, file: box, box: BOX, startS: 1, endS: 1.5 };
    const { out } = await render(
      {
        width: W,
        height: H,
        fps: FPS,
        durationS: 2,
        background: '#112233',
        layers: [
          clipLayer({ endS: 2, muted: true, enter: { kind: 'zoom_in', durationS: 0.5 } }),
          still,
        ],
      },
      'muted.mp4',
    );
    const info = await probe(out);
    expect(info.streams.map((s) => s.codec_type).sort()).toEqual(['audio', 'video']);
    expect(await meanVolume(out)).toBeLessThan(-80);
    // A still without motion shows exactly inside its window.
    expect(pixel(await frameAt(out, 1.2), 90, 90)[0]).toBeGreaterThan(200);
    for (const t of [0.6, 1.8]) expect(pixel(await frameAt(out, t), 90, 90)[0]).toBeLessThan(200);
  });

  it('slides and zooms a still into place, at rest after its enter', async () => {
    const { out } = await render(
      {
        ...canvasOf(2),
        layers: [
          {
            type: 'still',
            file: box,
            box: BOX,
            startS: 0,
            endS: 2,
            enter: { kind: 'slide_up', durationS: 0.8 },
          },
          {
            type: 'still',
            file: box,
            box: { ...BOX, left: 200, top: 300 },
            startS: 0,
            endS: 2,
            enter: { kind: 'zoom_in', durationS: 1 },
          },
        ],
      },
      'slide.mp4',
    );
    // Mid-enter the square sits lower than at rest; at rest it is where it was drawn.
    const moving = await frameAt(out, 0.2);
    expect(pixel(moving, 90, 50)[0]).toBeLessThan(100);
    expect(pixel(await frameAt(out, 1.5), 90, 50)[0]).toBeGreaterThan(200);
    // The zooming square (fading in as it enters) grows from its own centre: halfway its
    // corner is still empty while its centre shows; at rest it fills its box exactly.
    const zooming = await frameAt(out, 0.5);
    expect(pixel(zooming, 201, 301)[0]).toBeLessThan(40);
    expect(pixel(zooming, 250, 350)[0]).toBeGreaterThan(80);
    const still = await frameAt(out, 1.5);
    expect(pixel(still, 201, 301)[0]).toBeGreaterThan(200);
    expect(pixel(still, 296, 396)[0]).toBeGreaterThan(200);
    expect(pixel(still, 305, 405)[0]).toBeLessThan(100);
  });
});

describe('posterArgs', () => {
  it('draws the frame at a time at rest: the layers of that time and the clip there', async () => {
    const c: VideoComposition = {
      ...canvasOf(3),
      layers: [
        clipLayer({ startS: 0.5, endS: 3, enter: { kind: 'fade', durationS: 1 } }),
        {
          type: 'still',
          file: box,
          box: BOX,
          startS: 1,
          endS: 2,
          enter: { kind: 'zoom_in', durationS: 0.8 },
        },
      ],
    };
    const poster = async (t: number) => {
      const out = path.join(dir, `poster-${t}.jpg`);
      await run(tools.ffmpegPath, posterArgs(c, t, W / 2, out, safeInput));
      const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([W / 2, H / 2]);
      const at = (x: number, y: number) => [
        ...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3),
      ];
      return { at, data, info };
    };
    // Before the clip starts: the background only.
    const before = await poster(0.2);
    expect(before.data.reduce((m, v) => Math.max(m, v), 0)).toBeLessThan(40);
    // Mid-enter of both: the clip fully shown (no fade) and the square at rest, full size.
    const mid = await poster(1.1);
    const [r, g, b] = mid.at(Math.round((BOX.left + 4) / 2), Math.round((BOX.top + 4) / 2));
    expect(r).toBeGreaterThan(200);
    expect(g! + b!).toBeLessThan(80);
    const distinct = new Set<string>();
    for (let y = 100; y < H / 2; y += 20)
      for (let x = 0; x < W / 2; x += 20) distinct.add(mid.at(x, y).join());
    expect(distinct.size).toBeGreaterThan(5);
    // After the square's window: the clip without the square (no longer pure red there).
    const after = await poster(2.5);
    const [r2, g2, b2] = after.at(Math.round((BOX.left + 4) / 2), Math.round((BOX.top + 4) / 2));
    expect(r2! > 200 && g2! + b2! < 80).toBe(false);
  });
});

describe('withFilterScript', () => {
  it('moves a graph too long for one argument (160 moving clips) into a file', () => {
    const layers = Array.from({ length: 160 }, () =>
      clipLayer({
        startS: 0,
        endS: 180,
        enter: { kind: 'zoom_in', durationS: 10 },
        exit: { kind: 'fade', durationS: 10 },
      }),
    );
    const c: VideoComposition = {
      width: 1920,
      height: 1080,
      fps: 30,
      durationS: 180,
      background: '#000000',
      layers,
    };
    const args = composeArgs(c, 'out.mp4', safeInput);
    const graph = args[args.indexOf('-filter_complex') + 1]!;
    // Linux refuses a single argument over 128 KB (MAX_ARG_STRLEN): ffmpeg would not start.
    expect(graph.length).toBeGreaterThan(128 * 1024);
    const moved = withFilterScript(args, '/tmp/x/filters.txt');
    expect(moved.script).toBe(graph);
    expect(moved.args).not.toContain('-filter_complex');
    expect(moved.args.slice(moved.args.indexOf('-filter_complex_script'))[1]).toBe(
      '/tmp/x/filters.txt',
    );
    expect(Math.max(...moved.args.map((a) => a.length))).toBeLessThan(4096);
  });
});

describe('progressOf', () => {
  it('reads the last out_time_ms (microseconds) as a fraction of the duration', () => {
    expect(
      progressOf('frame=1\nout_time_ms=500000\nprogress=continue\nout_time_ms=1500000\n', 3),
    ).toBe(0.5);
    expect(progressOf('frame=0\n', 3)).toBeUndefined();
    expect(progressOf('out_time_ms=9000000\n', 3)).toBe(1);
  });
});
