// A video timeline as one ffmpeg run: the arguments that compose it, a pure function of the
// composition (no database, no storage, nothing run here). Frames are never drawn one by one
// in JavaScript (editly's way costs about 0.1 s a frame): each still layer arrives as one
// transparent PNG drawn once by the Canvas renderer and cut to its drawn pixels, and ffmpeg
// overlays it at its place inside its time window (`enable='between(t,a,b)'`), its fades on
// the alpha channel; clips are trimmed, scaled and cropped (cover) or padded (contain) to the
// frame; the audio track and the clips' audio are mixed. Output: H.264 yuv420p with
// `+faststart`, AAC. Stills are cut because ffmpeg decodes, fades and blends every frame of a
// looped image: full-frame stills made a 10 s story export four times slower.

import type { Box } from './canvas.ts';

export type { Box };

export type Motion = { kind: 'fade' | 'slide_up' | 'zoom_in'; durationS: number };

type Timed = { startS: number; endS: number; enter?: Motion; exit?: Motion };

/** A still layer: a PNG of the layer's drawn pixels, placed at `box` in the frame. */
export type StillLayer = Timed & { type: 'still'; file: string; box: Box };

/** A video clip from a local file (user media: it is read through the safe input options). */
export type ClipLayer = Timed & {
  type: 'clip';
  file: string;
  trimStartS: number;
  fit: 'cover' | 'contain';
  volume: number;
  muted: boolean;
  /** Whether the file has an audio stream (probed before). */
  hasAudio: boolean;
};

export type AudioTrack = {
  file: string;
  startS: number;
  volume: number;
  fadeInS: number;
  fadeOutS: number;
};

export type VideoComposition = {
  width: number;
  height: number;
  fps: number;
  durationS: number;
  /** The frame's colour under every layer (#rrggbb). */
  background: string;
  /** Bottom first. */
  layers: (StillLayer | ClipLayer)[];
  audio?: AudioTrack;
};

/** Input options for user media, ending with `-i` (core/media/tools.ts safeInput). */
export type SafeInput = (file: string, opts?: { seekS?: number }) => string[];

const n = (x: number) => Number(x.toFixed(4)).toString();

/** The alpha fades of a layer's enter and exit, as filters on an rgba stream. */
function fades(layer: Timed): string[] {
  const out: string[] = [];
  const { enter, exit } = layer;
  if (enter?.kind === 'fade' || enter?.kind === 'slide_up' || enter?.kind === 'zoom_in')
    out.push(`fade=t=in:st=${n(layer.startS)}:d=${n(enter.durationS)}:alpha=1`);
  if (exit)
    out.push(`fade=t=out:st=${n(layer.endS - exit.durationS)}:d=${n(exit.durationS)}:alpha=1`);
  return out;
}

/**
 * Where a layer's top-left corner is at time t, as overlay expressions: at rest at its box,
 * slid up into place on entering (from 8% of the frame's height below) and away on leaving.
 */
function position(layer: Timed, box: Box, frameHeight: number): { x: string; y: string } {
  const rise = n(frameHeight * 0.08);
  const parts: string[] = [];
  if (layer.enter?.kind === 'slide_up') {
    const { startS } = layer;
    const d = n(layer.enter.durationS);
    parts.push(`if(lt(t,${n(startS)}+${d}),${rise}*pow(1-(t-${n(startS)})/${d},2),0)`);
  }
  if (layer.exit?.kind === 'slide_up') {
    const from = n(layer.endS - layer.exit.durationS);
    const d = n(layer.exit.durationS);
    parts.push(`if(gt(t,${from}),-${rise}*pow((t-${from})/${d},2),0)`);
  }
  const y = String(box.top);
  return { x: String(box.left), y: parts.length ? `${y}+${parts.join('+')}` : y };
}

/**
 * A zoom from 85% to full size over `frames` frames, centred on the box, as filters. The
 * ffmpeg from npm (4.1) cannot scale by a time expression, so the picture is padded to a
 * box 1/0.85 its size and zoompan (which only zooms in) closes in on the picture.
 */
function zoomIn(box: Box, frames: number, fps: number): string[] {
  const mw = Math.ceil((box.width * (1 / 0.85 - 1)) / 2);
  const zmax = (box.width + 2 * mw) / box.width;
  const mh = Math.round((box.height * (zmax - 1)) / 2);
  return [
    'format=rgba',
    `pad=${box.width + 2 * mw}:${box.height + 2 * mh}:${mw}:${mh}:color=black@0`,
    `zoompan=z='1+${n(zmax - 1)}*min(1,on/${frames})':x='(iw-iw/zoom)/2':y='(ih-ih/zoom)/2':d=1:s=${box.width}x${box.height}:fps=${fps}`,
  ];
}

/**
 * The inputs and filters that draw the composition's picture, ending at `base`, with the
 * labels of the clips' sound (`audio`) and the number of inputs used.
 */
function pictureGraph(c: VideoComposition, safeInput: SafeInput) {
  const args: string[] = ['-hide_banner', '-nostdin', '-y', '-loglevel', 'error'];
  const filters: string[] = [];
  const audio: string[] = [];
  let input = 0;
  const dur = n(c.durationS);

  // The background is input 0: a colour source as long as the video.
  args.push(
    '-f',
    'lavfi',
    '-i',
    `color=c=${c.background.replace('#', '0x')}:s=${c.width}x${c.height}:r=${c.fps}:d=${dur}`,
  );
  let base = `${input++}:v`;
  const frame: Box = { left: 0, top: 0, width: c.width, height: c.height };

  c.layers.forEach((layer, i) => {
    const box = layer.type === 'still' ? layer.box : frame;
    // The layer's picture from `fromS` for `lengthS` seconds, on the timeline's clock.
    const picture = (fromS: number, lengthS: number, extra: string[]) => {
      let chain: string[];
      if (layer.type === 'still') {
        args.push('-loop', '1', '-framerate', String(c.fps), '-t', n(lengthS), '-i', layer.file);
        chain = ['format=rgba'];
      } else {
        const seekS = layer.trimStartS + fromS - layer.startS;
        args.push('-t', n(lengthS), ...safeInput(layer.file, { seekS }));
        // Scaled in the clip's own pixel format (a third of the work of scaling RGBA); an
        // alpha plane only where something needs one (fades, the transparent bars of contain).
        const fit =
          layer.fit === 'cover'
            ? `scale=${c.width}:${c.height}:force_original_aspect_ratio=increase,crop=${c.width}:${c.height}${fades(layer).length ? ',format=yuva420p' : ''}`
            : `scale=${c.width}:${c.height}:force_original_aspect_ratio=decrease,format=yuva420p,pad=${c.width}:${c.height}:(ow-iw)/2:(oh-ih)/2:color=black@0`;
        chain = [`fps=${c.fps}`, fit, 'setsar=1'];
      }
      const label = `p${input}`;
      chain.push(`setpts=PTS-STARTPTS+${n(fromS)}/TB`, ...fades(layer), ...extra);
      filters.push(`[${input++}:v]${chain.join(',')}[${label}]`);
      return label;
    };
    const overlay = (label: string, x: string, y: string, fromS: number, toS: number) => {
      const next = `v${i}${label}`;
      filters.push(
        `[${base}][${label}]overlay=x='${x}':y='${y}':eof_action=pass:enable='between(t,${n(fromS)},${n(toS)})'[${next}]`,
      );
      base = next;
    };

    // The whole window first (a clip's sound comes with it); a zoom covers its enter.
    const length = layer.endS - layer.startS;
    const main = picture(layer.startS, length, []);
    if (layer.type === 'clip' && layer.hasAudio && !layer.muted && layer.volume > 0) {
      const delay = Math.round(layer.startS * 1000);
      filters.push(
        `[${input - 1}:a]atrim=0:${n(length)},asetpts=PTS-STARTPTS,aformat=sample_rates=48000:channel_layouts=stereo,volume=${n(layer.volume)},adelay=${delay}|${delay},apad[a${i}]`,
      );
      audio.push(`[a${i}]`);
    }
    let restFromS = layer.startS;
    if (layer.enter?.kind === 'zoom_in') {
      const d = layer.enter.durationS;
      const frames = Math.max(1, Math.round(d * c.fps));
      const zoomed = picture(layer.startS, d, [
        ...zoomIn(box, frames, c.fps),
        `setpts=N/${c.fps}/TB+${n(layer.startS)}/TB`,
      ]);
      overlay(zoomed, String(box.left), String(box.top), layer.startS, layer.startS + d);
      restFromS = layer.startS + d;
    }
    const { x, y } = position(layer, box, c.height);
    overlay(main, x, y, restFromS, layer.endS);
  });
  return { args, filters, audio, base, inputs: input };
}

/**
 * The ffmpeg arguments that render `c` into `output` (an mp4 path), writing `-progress`
 * key=value lines to stdout. `safeInput` opens user media (clips, the audio track).
 */
export function composeArgs(c: VideoComposition, output: string, safeInput: SafeInput): string[] {
  const { args, filters, audio, base, inputs } = pictureGraph(c, safeInput);
  let input = inputs;
  const dur = n(c.durationS);

  if (c.audio) {
    const a = c.audio;
    const delay = Math.round(a.startS * 1000);
    const chain = [
      'aformat=sample_rates=48000:channel_layouts=stereo',
      `volume=${n(a.volume)}`,
      a.fadeInS > 0 ? `afade=t=in:st=0:d=${n(a.fadeInS)}` : undefined,
      `adelay=${delay}|${delay}`,
    ].filter(Boolean);
    args.push(...safeInput(a.file));
    filters.push(`[${input++}:a]${chain.join(',')},apad[track]`);
    audio.push('[track]');
  }
  // Without any sound the file still carries a silent AAC track (platforms expect one).
  if (!audio.length) {
    args.push('-f', 'lavfi', '-t', dur, '-i', 'anullsrc=r=48000:cl=stereo');
    audio.push(`[${input++}:a]`);
  }
  // amix divides by its input count; every input is padded to the end, so that count is
  // constant and a volume of the same factor gives each source its own level back.
  const mixed =
    audio.length > 1
      ? `${audio.join('')}amix=inputs=${audio.length}:duration=longest:dropout_transition=0,volume=${audio.length}`
      : `${audio[0]}anull`;
  const fadeOut =
    c.audio && c.audio.fadeOutS > 0
      ? `,afade=t=out:st=${n(c.durationS - c.audio.fadeOutS)}:d=${n(c.audio.fadeOutS)}`
      : '';
  filters.push(`${mixed},atrim=0:${dur}${fadeOut}[aout]`);
  filters.push(`[${base}]format=yuv420p,trim=0:${dur},setpts=PTS-STARTPTS[vout]`);

  args.push(
    '-filter_complex',
    filters.join(';'),
    '-map',
    '[vout]',
    '-map',
    '[aout]',
    '-r',
    String(c.fps),
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '20',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    '-ar',
    '48000',
    '-movflags',
    '+faststart',
    '-t',
    dur,
    '-progress',
    'pipe:1',
    '-nostats',
    output,
  );
  return args;
}

/**
 * The frame of the composition at `timeS` as it shows at rest: the layers whose window holds
 * that time, without their motions, and each clip's picture at that time (silent).
 */
export function frameAt(c: VideoComposition, timeS: number): VideoComposition {
  const frame = 1 / c.fps;
  const layers = c.layers
    .filter((l) => l.startS <= timeS && timeS < l.endS)
    .map((l) => {
      const still = { ...l, startS: 0, endS: frame, enter: undefined, exit: undefined };
      return l.type === 'clip'
        ? { ...still, trimStartS: l.trimStartS + (timeS - l.startS), muted: true }
        : still;
    });
  return { ...c, durationS: frame, layers, audio: undefined };
}

/** The ffmpeg arguments that write the frame at `timeS` as a JPEG `width` pixels wide. */
export function posterArgs(
  c: VideoComposition,
  timeS: number,
  width: number,
  output: string,
  safeInput: SafeInput,
): string[] {
  const { args, filters, base } = pictureGraph(frameAt(c, timeS), safeInput);
  filters.push(`[${base}]scale=${width}:-2,format=yuvj420p[poster]`);
  args.push('-filter_complex', filters.join(';'), '-map', '[poster]', '-frames:v', '1');
  args.push('-q:v', '4', '-f', 'image2', output);
  return args;
}

/**
 * The fraction done from ffmpeg's `-progress` output so far (its last `out_time_ms`, which
 * despite the name counts microseconds), or undefined before the first report.
 */
export function progressOf(progressText: string, durationS: number): number | undefined {
  const matches = [...progressText.matchAll(/out_time_ms=(\d+)/g)];
  const last = matches.at(-1);
  if (!last) return undefined;
  return Math.min(1, Number(last[1]) / 1e6 / durationS);
}

/**
 * The same arguments with the filter graph read from `file` instead (`-filter_complex_script`):
 * Linux refuses one argument over 128 KB, which a timeline of 160 moving layers exceeds. The
 * caller writes `script` to `file` before running ffmpeg.
 */
export function withFilterScript(args: string[], file: string): { args: string[]; script: string } {
  const at = args.indexOf('-filter_complex');
  if (at === -1) throw new Error('no -filter_complex to move');
  const script = args[at + 1]!;
  return {
    args: [...args.slice(0, at), '-filter_complex_script', file, ...args.slice(at + 2)],
    script,
  };
}
