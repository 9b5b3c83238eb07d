// Service configuration: read once from the environment and validated with zod, so a bad
// value stops start-up with a message that names the variable (CONTRACT.md, Configuration).
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import {
  type OAuthPlatform,
  PLATFORM_ENV,
  type PlatformApp,
  plainHttpPlatformVars,
  platformApps,
} from './platformApps.ts';
import {
  defaultPoolConcurrency,
  parsePools,
  WORKER_POOLS,
  type WorkerPool,
} from './workerPools.ts';

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const cidr = z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, 'expected a CIDR such as 127.0.0.0/8');

/** An absolute path to an executable file (a configured ffmpeg or ffprobe). */
const executable = z
  .string()
  .refine((p) => path.isAbsolute(p), 'must be an absolute path, e.g. /usr/bin/ffmpeg')
  .refine((p) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  }, 'must name an executable file');

/**
 * Words that mark a value copied from an example rather than generated: a secret published in
 * a sample file signs nothing safely, so start-up refuses it rather than run with it.
 */
const PLACEHOLDER_MARKERS = [
  'change-me',
  'changeme',
  'change_me',
  'replace-me',
  'replaceme',
  'placeholder',
  'example',
  'secret',
  'password',
];

const placeholderIn = (value: string) =>
  PLACEHOLDER_MARKERS.find((m) => value.toLowerCase().includes(m));

const PLACEHOLDER_HINT = 'generate one, e.g. `openssl rand -base64 32`';

const notPlaceholder = (v: string, ctx: z.RefinementCtx) => {
  const marker = placeholderIn(v);
  if (marker)
    ctx.addIssue({
      code: 'custom',
      message: `looks like a placeholder (contains "${marker}"); ${PLACEHOLDER_HINT}`,
    });
};

/** A secret given in the environment: long enough, and not a sample value. */
const secret = z.string().min(32, 'must be at least 32 characters').superRefine(notPlaceholder);

/** Names proxy-addr (Fastify's trustProxy) knows for address ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: whose X-Forwarded-For to believe for the client address (login throttling,
 * logs). `true` means one proxy in front: the client is the address that proxy appended, not
 * the leftmost entry, which the client itself may have written. Naming the proxies' addresses
 * is safer still: a client reaching the port directly cannot pose as one.
 */
const trustProxy = z
  .string()
  .default('false')
  .transform((raw, ctx): false | number | string[] => {
    const v = raw.trim().toLowerCase();
    if (['false', 'no', '0'].includes(v)) return false;
    if (['true', 'yes'].includes(v)) return 1;
    if (/^\d+$/.test(v)) return Number(v);
    const list = v.split(',').map((s) => s.trim());
    const known = (s: string) =>
      PROXY_RANGE_NAMES.includes(s) || ipaddr.isValid(s) || ipaddr.isValidCIDR(s);
    if (list.every(known)) return list;
    ctx.addIssue({
      code: 'custom',
      message:
        'expected false, true (one proxy), the number of proxies in front, or their addresses/CIDRs (or loopback)',
    });
    return z.NEVER;
  });

/** The password inside a connection string, if it has one. */
function urlPassword(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    // The service's own origin and path: links, cookies, OAuth redirects and signed media
    // addresses are built on it, so credentials, a query or a fragment would leak or break them.
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .refine((v) => {
        const u = new URL(v);
        return !u.username && !u.password && !u.search && !u.hash;
      }, 'an http(s) address without credentials, query or fragment, e.g. https://social.example.com')
      .optional(),
    DATABASE_URL: z
      .string()
      .min(1)
      .superRefine((v, ctx) => {
        const marker = placeholderIn(urlPassword(v));
        if (marker)
          ctx.addIssue({
            code: 'custom',
            message: `its password looks like a placeholder (contains "${marker}"); set a generated one`,
          });
      })
      .optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    STORAGE: z.enum(['fs', 's3']).default('fs'),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
    WORKER_POOLS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        try {
          return parsePools(v);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
          return z.NEVER;
        }
      }),
    ...Object.fromEntries(
      WORKER_POOLS.map((pool) => [
        `WORKER_CONCURRENCY_${pool.toUpperCase()}`,
        z.coerce.number().int().min(1).max(256).optional(),
      ]),
    ),
    RENDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
    RENDER_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(30_000),
    SESSION_SECRET: secret.optional(),
    MEDIA_URL_SECRET: secret.optional(),
    CREDENTIALS_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
      .superRefine(notPlaceholder)
      .optional(),
    OUTBOUND_ALLOWLIST: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(z.array(cidr)),
    OUTBOUND_ALLOW_HTTP: boolean.default(false),
    TRUST_PROXY: trustProxy,
    BLUESKY_APPVIEW_URL: z.url().default('https://public.api.bsky.app'),
    ...PLATFORM_ENV,
    LLM_BASE_URL: z.url().optional(),
    LLM_API_KEY: z.string().optional(),
    LLM_MODEL: z.string().optional(),
    SIGNUP: z.enum(['first', 'open', 'closed']).default('first'),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    S3_ENDPOINT: z.url().optional(),
    S3_BUCKET: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_FORCE_PATH_STYLE: boolean.default(false),
    FFMPEG_PATH: executable.optional(),
    FFPROBE_PATH: executable.optional(),
    FFMPEG_TIMEOUT_S: z.coerce.number().positive().max(3600).default(60),
    EXPORT_TIMEOUT_S: z.coerce.number().positive().max(86_400).default(1_800),
    GENERATE_TIMEOUT_S: z.coerce.number().positive().max(3600).default(120),
    SHUTDOWN_TIMEOUT_S: z.coerce.number().positive().max(3600).default(20),
  })
  .superRefine((e, ctx) => {
    if (e.LLM_BASE_URL && !e.LLM_MODEL)
      ctx.addIssue({
        code: 'custom',
        path: ['LLM_MODEL'],
        message: 'required with LLM_BASE_URL (the model the server should run)',
      });
    const appView = new URL(e.BLUESKY_APPVIEW_URL).protocol;
    if (appView !== 'https:' && appView !== 'http:')
      ctx.addIssue({ code: 'custom', path: ['BLUESKY_APPVIEW_URL'], message: 'must be http(s)' });
    if (appView === 'http:' && !e.OUTBOUND_ALLOW_HTTP)
      ctx.addIssue({
        code: 'custom',
        path: ['BLUESKY_APPVIEW_URL'],
        message:
          'is http: set OUTBOUND_ALLOW_HTTP=true (and OUTBOUND_ALLOWLIST for a private address)',
      });
    if (!e.OUTBOUND_ALLOW_HTTP)
      for (const name of plainHttpPlatformVars(e))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message:
            'is http: set OUTBOUND_ALLOW_HTTP=true (and OUTBOUND_ALLOWLIST for a private address)',
        });
    if (e.STORAGE !== 's3') return;
    for (const name of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const)
      if (!e[name])
        ctx.addIssue({ code: 'custom', path: [name], message: 'required when STORAGE=s3' });
  });

export type Config = {
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  storage: 'fs' | 's3';
  /** S3-compatible bucket, when storage is s3. */
  s3:
    | {
        endpoint: string | undefined;
        bucket: string;
        region: string;
        accessKeyId: string;
        secretAccessKey: string;
        forcePathStyle: boolean;
      }
    | undefined;
  workerConcurrency: number;
  /** The task families a worker process runs (WORKER_POOLS; `--pool` overrides it). */
  workerPools: WorkerPool[];
  /** Jobs each pool runs at once in one process (WORKER_CONCURRENCY_<POOL>). */
  poolConcurrency: Record<WorkerPool, number>;
  /**
   * Canvas pages drawn at once, each in its own thread; default: the cores in a worker
   * process, one less beside the API (`all`).
   */
  renderThreads: number | undefined;
  /** A page drawing longer than this is stopped and the design gets a render_error. */
  renderTimeoutMs: number;
  /** Explicit secret; when absent one is generated once into DATA_DIR (see core/secrets.ts). */
  sessionSecret: string | undefined;
  /** Seals platform credentials (base64, 32 bytes); when absent, generated into DATA_DIR. */
  credentialsKey: string | undefined;
  /**
   * Signs media addresses (/media/{id}?expires&sig); when absent, generated into DATA_DIR.
   * Every API process behind one address needs the same one.
   */
  mediaUrlSecret: string | undefined;
  outboundAllowlist: string[];
  outboundAllowHttp: boolean;
  /** The Bluesky AppView whose public XRPC gives posts' counts (through the outbound guard). */
  blueskyAppViewUrl: string;
  /** Each OAuth platform's API addresses and the operator's app credentials for it. */
  platformApps: Record<OAuthPlatform, PlatformApp>;
  /**
   * Which proxies' X-Forwarded-For gives the client address: false (none: the socket's
   * address), a number of proxy hops in front, or the proxies' addresses/CIDRs.
   */
  trustProxy: false | number | string[];
  /** The model server generation writes with; the built-in generator when unset. */
  llm: { baseUrl: string; apiKey: string | undefined; model: string } | undefined;
  signup: 'first' | 'open' | 'closed';
  logLevel: string;
  /** A system ffmpeg; unset: the binary from @ffmpeg-installer (see core/media/tools.ts). */
  ffmpegPath: string | undefined;
  /** A system ffprobe; unset: the binary from @ffprobe-installer. */
  ffprobePath: string | undefined;
  /** How long one ffprobe or ffmpeg run on user media may take before it is killed. */
  ffmpegTimeoutMs: number;
  /** The longest one video export's ffmpeg run may take (EXPORT_TIMEOUT_S). */
  exportTimeoutMs: number;
  /** How long POST /v1/generate and repurpose wait for their drafts before a 504. */
  generateTimeoutMs: number;
  /** How long a SIGTERM/SIGINT drain may take before the process stops anyway (exit 1). */
  shutdownTimeoutMs: number;
};

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset", as in most .env files.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    storage: e.STORAGE,
    s3:
      e.STORAGE === 's3'
        ? {
            endpoint: e.S3_ENDPOINT,
            bucket: e.S3_BUCKET!,
            region: e.S3_REGION,
            accessKeyId: e.S3_ACCESS_KEY_ID!,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY!,
            forcePathStyle: e.S3_FORCE_PATH_STYLE,
          }
        : undefined,
    workerConcurrency: e.WORKER_CONCURRENCY,
    workerPools: e.WORKER_POOLS,
    poolConcurrency: Object.fromEntries(
      WORKER_POOLS.map((pool) => [
        pool,
        (e as Record<string, unknown>)[`WORKER_CONCURRENCY_${pool.toUpperCase()}`] ??
          defaultPoolConcurrency(pool, e.WORKER_CONCURRENCY),
      ]),
    ) as Record<WorkerPool, number>,
    renderThreads: e.RENDER_THREADS,
    renderTimeoutMs: e.RENDER_TIMEOUT_MS,
    sessionSecret: e.SESSION_SECRET,
    credentialsKey: e.CREDENTIALS_KEY,
    mediaUrlSecret: e.MEDIA_URL_SECRET,
    outboundAllowlist: e.OUTBOUND_ALLOWLIST,
    blueskyAppViewUrl: e.BLUESKY_APPVIEW_URL.replace(/\/+$/, ''),
    platformApps: platformApps(e),
    outboundAllowHttp: e.OUTBOUND_ALLOW_HTTP,
    trustProxy: e.TRUST_PROXY,
    llm: e.LLM_BASE_URL
      ? { baseUrl: e.LLM_BASE_URL, apiKey: e.LLM_API_KEY, model: e.LLM_MODEL! }
      : undefined,
    signup: e.SIGNUP,
    logLevel: e.LOG_LEVEL,
    ffmpegPath: e.FFMPEG_PATH,
    ffprobePath: e.FFPROBE_PATH,
    ffmpegTimeoutMs: Math.max(1, Math.round(e.FFMPEG_TIMEOUT_S * 1000)),
    exportTimeoutMs: Math.round(e.EXPORT_TIMEOUT_S * 1000),
    generateTimeoutMs: Math.round(e.GENERATE_TIMEOUT_S * 1000),
    shutdownTimeoutMs: Math.round(e.SHUTDOWN_TIMEOUT_S * 1000),
  };
}
