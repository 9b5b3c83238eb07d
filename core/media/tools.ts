// The one way ffprobe and ffmpeg run on user media. Their inputs are untrusted: a DASH or HLS
// manifest, a concat script or an image sequence makes them open other files and URLs that
// the outbound guard never sees (a `<BaseURL>` on a loopback address was fetched, and one that
// never answered hung the probe). So every run reads one local file, through the accepted
// demuxers only, and is killed when it overruns its time limit.
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';

export type MediaTools = {
  /** The ffmpeg binary: FFMPEG_PATH, or the one from @ffmpeg-installer. */
  ffmpegPath: string;
  /** The ffprobe binary: FFPROBE_PATH, or the one from @ffprobe-installer. */
  ffprobePath: string;
  /** A run still going after this long is killed with SIGKILL (FFMPEG_TIMEOUT_S). */
  timeoutMs: number;
};

/**
 * The demuxers allowed to open user media, by the names `ffprobe -demuxers` prints (a demuxer
 * is allowed when any of its names is listed). Everything else is refused before it reads
 * past the probe, notably hls, dash, concat, image2 and webm_dash_manifest, which open
 * further inputs.
 */
export const ACCEPTED_DEMUXERS = [
  'mov',
  'mp4',
  'm4a',
  '3gp',
  '3g2',
  'mj2',
  'matroska',
  'webm',
  'mp3',
  'wav',
  'ogg',
  'aac',
  'flac',
] as const;

/** The accepted formats, as refusals name them. */
export const ACCEPTED_FORMATS =
  'MP4/MOV or WebM/Matroska video; MP3, WAV, Ogg, AAC, FLAC or M4A audio';

/**
 * The input options every run gets, ending with `-i` and the file. `-protocol_whitelist file`
 * alone does not stop the DASH demuxer fetching its segments (seen with the ffprobe from npm);
 * the demuxer whitelist refuses the manifest before it is parsed.
 */
export function safeInput(file: string, opts: { seekS?: number } = {}): string[] {
  return [
    '-protocol_whitelist',
    'file',
    '-format_whitelist',
    ACCEPTED_DEMUXERS.join(','),
    ...(opts.seekS ? ['-ss', String(opts.seekS)] : []),
    '-i',
    `file:${file}`,
  ];
}

const FAILURES = {
  timeout: 'was killed after its time limit',
  exit: 'failed',
  output_too_large: 'was killed for writing more output than allowed',
} as const;
export type FailureReason = keyof typeof FAILURES;

/** A run that did not produce its output; `detail` is the end of its stderr. */
export class MediaToolFailed extends Error {
  readonly reason: FailureReason;
  constructor(tool: string, reason: FailureReason, detail: string) {
    super(`${tool} ${FAILURES[reason]}${detail ? `: ${detail}` : ''}`);
    this.name = 'MediaToolFailed';
    this.reason = reason;
  }
}

const STDERR_TAIL = 2_000;

/**
 * The command that runs a tool tied to this process: on Linux, util-linux's `setpriv
 * --pdeathsig KILL` asks the kernel (prctl PR_SET_PDEATHSIG) to SIGKILL the tool the moment
 * this process dies, SIGKILL included, which no handler of ours would see; setpriv then execs
 * the tool in its own place (same pid). A worker killed mid-export thus takes its ffmpeg with
 * it instead of leaving it encoding for up to EXPORT_TIMEOUT_S. Nothing more is needed: ffmpeg
 * ignores SIGPIPE and write errors on its progress pipe, so our end closing never stopped it.
 * Where setpriv is missing or too old (util-linux before 2.33, not Linux), tools run untied.
 */
let tie: string[] | null | undefined;

/** Whether tools run tied to this process (see `tie`); looked up once, on first use. */
export function toolsDieWithProcess(): boolean {
  if (tie === undefined) {
    tie = null;
    if (process.platform === 'linux')
      try {
        execFileSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], {
          stdio: 'ignore',
          timeout: 10_000,
        });
        tie = ['--pdeathsig', 'KILL', '--'];
      } catch {
        // Not there, or without --pdeathsig: untied.
      }
  }
  return tie !== null;
}

function tiedCommand(binary: string, args: string[]): [string, string[]] {
  return toolsDieWithProcess() && tie ? ['setpriv', [...tie, binary, ...args]] : [binary, args];
}

/**
 * Runs `binary` with `args`, tied to this process, and answers its stdout. Killed with SIGKILL
 * after `timeoutMs` or once stdout passes `maxOutputBytes`; a non-zero exit is a failure too.
 */
export function runMediaTool(
  binary: string,
  args: string[],
  limits: {
    timeoutMs: number;
    maxOutputBytes: number;
    /** Sees stdout as it comes (ffmpeg's `-progress pipe:1` lines). */
    onStdout?: (chunk: Buffer) => void;
    /** A niceness to run at (a long encode yields the cores to deliveries and the API). */
    nice?: number;
  },
): Promise<Buffer> {
  const tool = binary.split(/[\\/]/).at(-1) ?? binary;
  return new Promise((resolve, reject) => {
    const [command, argv] = tiedCommand(binary, args);
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (limits.nice && child.pid !== undefined) {
      try {
        setPriority(child.pid, limits.nice);
      } catch {
        // Already gone: its exit is reported below.
      }
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let failure: FailureReason | undefined;
    const kill = (reason: FailureReason) => {
      failure ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('timeout'), limits.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > limits.maxOutputBytes) return kill('output_too_large');
      out.push(chunk);
      limits.onStdout?.(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${binary}: ${err.message}`, { cause: err }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failure) return reject(new MediaToolFailed(tool, failure, stderr.trim()));
      if (code !== 0) return reject(new MediaToolFailed(tool, 'exit', stderr.trim()));
      resolve(Buffer.concat(out));
    });
  });
}

const require = createRequire(import.meta.url);

/**
 * The binaries and time limit from the configuration. The npm binaries are looked up only
 * when no path is configured, so an image that ships its own ffmpeg may leave them out.
 */
export function mediaTools(config: {
  ffmpegPath: string | undefined;
  ffprobePath: string | undefined;
  ffmpegTimeoutMs: number;
}): MediaTools {
  return {
    ffmpegPath: config.ffmpegPath ?? require('@ffmpeg-installer/ffmpeg').path,
    ffprobePath: config.ffprobePath ?? require('@ffprobe-installer/ffprobe').path,
    timeoutMs: config.ffmpegTimeoutMs,
  };
}
