// A video timeline as one ffmpeg run: the arguments that compose it, a pure function of the
// composition (no database, no storage, nothing run here). Frames are never drawn one by one
// in JavaScript (editly's way costs about 0.1 s a frame): each still layer arrives as one
// full-frame transparent PNG drawn once by the Canvas renderer, and ffmpeg overlays it inside
// its time window (`enable='between(t,a,b)'`), its fades on the alpha channel; clips are
// trimmed, scaled and cropped (cover) or padded (contain) to the frame; the audio track and the
// clips' audio are mixed. Output: H.264 yuv420p with `+faststart`, AAC.

export type Motion = { kind: 'fade' | 'slide_up' | 'zoom_in'; durationS: number };

type Timed = { startS: number; endS: number; enter?: Motion; exit?: Motion };

/** A still layer: a PNG of the whole frame, transparent outside the layer. */
export type StillLayer = Timed & { type: 'still'; file: string };

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
 * Where a layer's top-left corner is at time t, as overlay expressions: at rest at (0, 0),
 * slid up into place on entering (from 8% of the height below) and away on leaving.
 */
function position(layer: Timed, height: number): { x: string; y: string } {
  const rise = n(height * 0.08);
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
  const base = { x: '(W-w)/2', y: '(H-h)/2' };
  return parts.length ? { x: base.x, y: `${base.y}+${parts.join('+')}` } : base;
}

/** A zoom from 85% to full size over the enter, as a per-frame scale of the layer. */
function zoom(layer: Timed, width: number, height: number): string | undefined {
  if (layer.enter?.kind !== 'zoom_in') return undefined;
  const s = n(layer.startS);
  const d = n(layer.enter.durationS);
  const f = `(0.85+0.15*min(1,max(0,(t-${s})/${d})))`;
  return `scale=w='trunc(${width}*${f}/2)*2':h='trunc(${height}*${f}/2)*2':eval=frame`;
}

/**
 * The ffmpeg arguments that render `c` into `output` (an mp4 path), writing `-progress`
 * key=value lines to stdout. `safeInput` opens user media (clips, the audio track).
 */
export function composeArgs(c: VideoComposition, output: string, safeInput: SafeInput): string[] {
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

  c.layers.forEach((layer, i) => {
    const label = `l${i}`;
    const window = `enable='between(t,${n(layer.startS)},${n(layer.endS)})'`;
    if (layer.type === 'still') {
      // A still held for the whole timeline; its window is the overlay's `enable`.
      args.push('-loop', '1', '-framerate', String(c.fps), '-t', dur, '-i', layer.file);
      const chain = ['format=rgba', zoom(layer, c.width, c.height), ...fades(layer)].filter(
        Boolean,
      );
      filters.push(`[${input}:v]${chain.join(',')}[${label}]`);
    } else {
      const length = n(layer.endS - layer.startS);
      args.push('-t', length, ...safeInput(layer.file, { seekS: layer.trimStartS }));
      const fit =
        layer.fit === 'cover'
          ? `scale=${c.width}:${c.height}:force_original_aspect_ratio=increase,crop=${c.width}:${c.height}`
          : `scale=${c.width}:${c.height}:force_original_aspect_ratio=decrease,pad=${c.width}:${c.height}:(ow-iw)/2:(oh-ih)/2:color=black@0`;
      const chain = [
        `fps=${c.fps}`,
        'format=rgba',
        fit,
        'setsar=1',
        `setpts=PTS-STARTPTS+${n(layer.startS)}/TB`,
        zoom(layer, c.width, c.height),
        ...fades(layer),
      ].filter(Boolean);
      filters.push(`[${input}:v]${chain.join(',')}[${label}]`);
      if (layer.hasAudio && !layer.muted && layer.volume > 0) {
        const delay = Math.round(layer.startS * 1000);
        filters.push(
          `[${input}:a]atrim=0:${length},asetpts=PTS-STARTPTS,aformat=sample_rates=48000:channel_layouts=stereo,volume=${n(layer.volume)},adelay=${delay}|${delay},apad[a${i}]`,
        );
        audio.push(`[a${i}]`);
      }
    }
    input++;
    const { x, y } = position(layer, c.height);
    const next = `v${i}`;
    filters.push(
      `[${base}][${label}]overlay=x='${x}':y='${y}':eof_action=pass:format=auto:${window}[${next}]`,
    );
    base = next;
  });

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
 * The fraction done from ffmpeg's `-progress` output so far (its last `out_time_ms`, which
 * despite the name counts microseconds), or undefined before the first report.
 */
export function progressOf(progressText: string, durationS: number): number | undefined {
  const matches = [...progressText.matchAll(/out_time_ms=(\d+)/g)];
  const last = matches.at(-1);
  if (!last) return undefined;
  return Math.min(1, Number(last[1]) / 1e6 / durationS);
}
