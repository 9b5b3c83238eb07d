// Facts about video and audio bytes, read by ffprobe (from npm, through fluent-ffmpeg):
// kind, media type, duration and frame size. Anything ffprobe cannot read is not media.
import ffprobeInstaller from '@ffprobe-installer/ffprobe';
import ffmpeg from 'fluent-ffmpeg';

ffmpeg.setFfprobePath(ffprobeInstaller.path);

export type MediaFacts = {
  kind: 'video' | 'audio';
  mime: string;
  durationS: number | null;
  width: number | null;
  height: number | null;
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

/** Probes a local file; undefined when it is not video or audio we keep. */
export function probeMedia(file: string): Promise<MediaFacts | undefined> {
  return new Promise((resolve) => {
    ffmpeg.ffprobe(file, (err, data) => {
      if (err || !data?.format) return resolve(undefined);
      const format = data.format.format_name ?? '';
      const video = data.streams.find(
        (s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1,
      );
      const audio = data.streams.find((s) => s.codec_type === 'audio');
      const types = video ? VIDEO_TYPES : audio ? AUDIO_TYPES : [];
      const mime = types.find(([pattern]) => pattern.test(format))?.[1];
      if (!mime) return resolve(undefined);
      const duration = Number(data.format.duration);
      resolve({
        kind: video ? 'video' : 'audio',
        mime,
        durationS: Number.isFinite(duration) ? Math.round(duration * 1000) / 1000 : null,
        width: video?.width ?? null,
        height: video?.height ?? null,
      });
    });
  });
}
