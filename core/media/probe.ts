// Facts about video and audio bytes, read by ffprobe through the safe runner (local file,
// accepted demuxers, time limit): kind, media type, duration and frame size. Anything
// ffprobe cannot read through those demuxers is not media we keep.
import { MediaToolFailed, type MediaTools, runMediaTool, safeInput } from './tools.ts';

export type MediaFacts = {
  kind: 'video' | 'audio';
  mime: string;
  durationS: number | null;
  width: number | null;
  height: number | null;
  /** Whether it has a sound stream (a video may be silent). */
  hasAudio: boolean;
};

type ProbeStream = {
  codec_type?: string;
  width?: number;
  height?: number;
  disposition?: { attached_pic?: number };
};
type ProbeOutput = {
  format?: { format_name?: string; duration?: string };
  streams?: ProbeStream[];
};

const VIDEO_TYPES: [RegExp, string][] = [
  [/mp4|mov|m4a|3gp/, 'video/mp4'],
  [/webm|matroska/, 'video/webm'],
];
const AUDIO_TYPES: [RegExp, string][] = [
  [/^mp3$/, 'audio/mpeg'],
  [/wav/, 'audio/wav'],
  [/ogg/, 'audio/ogg'],
  [/mp4|m4a|mov/, 'audio/mp4'],
  [/aac|adts/, 'audio/aac'],
  [/flac/, 'audio/flac'],
];

/** ffprobe's JSON for one file is small; anything larger is not a file we keep. */
const MAX_PROBE_OUTPUT = 4 * 1024 * 1024;

/**
 * Probes a local file; undefined when it is not video or audio in an accepted format. Throws
 * MediaToolFailed (reason `timeout`) when ffprobe overran its time limit.
 */
export async function probeMedia(tools: MediaTools, file: string): Promise<MediaFacts | undefined> {
  let data: ProbeOutput;
  try {
    const out = await runMediaTool(
      tools.ffprobePath,
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', ...safeInput(file)],
      { timeoutMs: tools.timeoutMs, maxOutputBytes: MAX_PROBE_OUTPUT },
    );
    data = JSON.parse(out.toString()) as ProbeOutput;
  } catch (err) {
    if (err instanceof MediaToolFailed && err.reason === 'timeout') throw err;
    if (err instanceof MediaToolFailed || err instanceof SyntaxError) return undefined;
    throw err;
  }
  if (!data.format) return undefined;
  const format = data.format.format_name ?? '';
  const streams = data.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const audio = streams.find((s) => s.codec_type === 'audio');
  const types = video ? VIDEO_TYPES : audio ? AUDIO_TYPES : [];
  const mime = types.find(([pattern]) => pattern.test(format))?.[1];
  if (!mime) return undefined;
  const duration = Number(data.format.duration);
  return {
    kind: video ? 'video' : 'audio',
    mime,
    durationS: Number.isFinite(duration) ? Math.round(duration * 1000) / 1000 : null,
    width: video?.width ?? null,
    height: video?.height ?? null,
    hasAudio: audio !== undefined,
  };
}
