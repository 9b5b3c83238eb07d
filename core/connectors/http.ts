// One HTTP exchange with a platform, through the outbound guard, and the mapping of its
// failures that every connector shares: no answer, 5xx and 429 are retryable (429 and 503 with
// their Retry-After, a 429 with its rate limit's reset), other 4xx are final. A request the
// guard refuses is final too (retrying cannot change the operator's rules, so the message
// names the setting that does), and so is a 2xx answer without the JSON the platform
// documents: connectors read answers only through `documented`, with a zod schema of the
// fields they use.
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import { formatBytes } from '../kernel/sizes.ts';
import {
  checkUrlForm,
  HostNotResolved,
  type OutboundPolicy,
  OutboundRefused,
  resolveChecked,
  sendChecked,
} from '../outbound/guard.ts';
import { PublicationError } from './connector.ts';
import { plainText } from './readings.ts';

/** How long one platform request may take unless a connector is told otherwise. */
export const PLATFORM_TIMEOUT_MS = 30_000;
/** More than any answer a connector reads; a larger one is refused, not parsed. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export type PlatformResponse = {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
};

export type PlatformRequest = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: Buffer | string;
  timeoutMs: number;
};

/**
 * What the operator can change so that the guard lets `url` through, when the guard's
 * refusal does not say it already (an http: address: it names OUTBOUND_ALLOW_HTTP itself).
 */
function guardAdvice(url: string, policy: OutboundPolicy): string | undefined {
  try {
    checkUrlForm(url, policy);
  } catch {
    return URL.canParse(url) && new URL(url).protocol === 'http:'
      ? undefined
      : 'reconnect the account with an https address';
  }
  return 'an operator allows a private address by adding it to OUTBOUND_ALLOWLIST (CIDRs, e.g. 10.0.0.0/8)';
}

const unreachable = (platform: string, err: unknown) =>
  new PublicationError(`${platform} could not be reached: ${(err as Error).message}`, {
    retryable: true,
    cause: err,
  });

/**
 * Sends the request. A network error, a timeout or a host that does not resolve is a
 * retryable PublicationError; a guard refusal and an oversized answer are final ones.
 */
export async function platformRequest(
  policy: OutboundPolicy,
  platform: string,
  url: string,
  init: PlatformRequest,
): Promise<PlatformResponse> {
  let target: Awaited<ReturnType<typeof resolveChecked>>;
  try {
    target = await resolveChecked(url, policy);
  } catch (err) {
    if (!(err instanceof OutboundRefused)) throw unreachable(platform, err);
    // A name that does not resolve reads as the guard's refusal, as the guard answers it (a
    // different answer would confirm which names exist inside the operator's network), but is
    // retried: DNS may come back.
    const advice = guardAdvice(url, policy);
    throw new PublicationError(
      `${platform} was not contacted: the outbound guard refused it (${err.message})` +
        `${advice ? `; ${advice}` : ''}.`,
      { retryable: err instanceof HostNotResolved, cause: err },
    );
  }
  let res: Awaited<ReturnType<typeof sendChecked>>;
  try {
    res = await sendChecked(target, {
      method: init.method,
      headers: init.headers ?? {},
      body: init.body,
      timeoutMs: init.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
  } catch (err) {
    if (err instanceof OutboundRefused)
      throw new PublicationError(
        `${platform} answered with more than ${formatBytes(MAX_RESPONSE_BYTES)}, more than any answer it documents.`,
        { retryable: false, cause: err },
      );
    throw unreachable(platform, err);
  }
  let json: unknown;
  try {
    json = JSON.parse(res.body.toString('utf8'));
  } catch {}
  return { status: res.status, headers: res.headers, json };
}

/**
 * The documented JSON of a 2xx answer to `what` (e.g. "POST /api/v1/statuses"), as `schema`
 * reads it; anything else is a final failure naming the first field that did not fit, with
 * `advice` when the caller has some (a post may exist after a garbled answer to its creation).
 */
export function documented<S extends z.ZodType>(
  platform: string,
  what: string,
  res: PlatformResponse,
  schema: S,
  advice?: string,
): z.output<S> {
  const parsed = schema.safeParse(res.json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const problem =
    res.json === undefined
      ? 'the body is not JSON'
      : `${issue?.path.join('.') || 'the body'}: ${issue?.message ?? 'unexpected'}`;
  throw new PublicationError(
    `${platform} answered ${res.status} to ${what} without the JSON it documents (${problem})` +
      (advice ? `; ${advice}` : '.'),
    { retryable: false },
  );
}

/** For answers to a post's creation: the platform may have the post although we cannot tell. */
export { CHECK_THE_ACCOUNT } from './connector.ts';

/** A string field of an answer's JSON (an error's name or message), if it has one. */
export function fieldOf(res: PlatformResponse, key: string): string | undefined {
  const json = res.json;
  if (typeof json !== 'object' || json === null) return undefined;
  const value = (json as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), when the header has one. */
export function retryAfterMs(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const value = headers['retry-after'];
  if (!value) return undefined;
  const v = value.trim();
  // Delta-seconds, or an HTTP date (every form of which starts with the day's name: Date.parse
  // alone would take "-5" for a year). Nothing waits longer than a day: an absurd value (years,
  // past Date's range) is a day.
  const ms = /^\d+$/.test(v)
    ? Number(v) * 1000
    : /^[A-Za-z]{3}/.test(v)
      ? Date.parse(v) - now
      : Number.NaN;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(0, ms), RETRY_AFTER_MAX_MS);
}

/** The longest wait a Retry-After is taken at (every caller caps its own waits within it). */
export const RETRY_AFTER_MAX_MS = 86_400_000;

/**
 * Rate limits answered as `<prefix>-limit`, `-remaining` and `-reset` (Unix seconds): X's
 * 15-minute window (docs.x.com fundamentals/rate-limits), and the 24-hour caps per user and
 * per app that X's answers to POST /2/tweets also carry.
 */
const RATE_LIMITS = ['x-rate-limit', 'x-user-limit-24hour', 'x-app-limit-24hour'] as const;

/**
 * When a 429's rate limit resets, where the answer says: the latest reset among the limits it
 * says are spent (`-remaining: 0`), else `x-rate-limit-reset`. Without either, Retry-After
 * (above) is what there is.
 */
export function rateLimitResetAt(headers: IncomingHttpHeaders): Date | undefined {
  const header = (name: string) => {
    const v = headers[name];
    return typeof v === 'string' ? v.trim() : undefined;
  };
  const resetOf = (prefix: string) => {
    const reset = header(`${prefix}-reset`);
    return reset && /^\d{1,12}$/.test(reset) ? Number(reset) * 1000 : undefined;
  };
  const spent = RATE_LIMITS.filter((p) => header(`${p}-remaining`) === '0')
    .map(resetOf)
    .filter((at) => at !== undefined);
  const at = spent.length ? Math.max(...spent) : resetOf('x-rate-limit');
  return at === undefined ? undefined : new Date(at);
}

/** The next midnight UTC after `now`: when LinkedIn's daily limits reset (its 429 says nothing). */
export function nextMidnightUtc(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** A platform's own reason, as a failure's message carries it: plain and short. */
export const REASON_LIMIT = 300;

/**
 * The failure for a non-2xx answer, with the platform's own reason in the message (its text,
 * cleaned of hidden characters and cut to REASON_LIMIT: it is kept and shown as an account's
 * or a post's error). Retry-After is taken from a 429 or a 503, which are what it means; a
 * 429's reset from its rate-limit headers, else, when it has no Retry-After either, from
 * `resetWhenUnsaid` (a platform whose documented limits reset at a known time).
 */
export function refusal(
  platform: string,
  res: PlatformResponse,
  reason: string,
  opts: { reconnect?: boolean; resetWhenUnsaid?: () => Date } = {},
): PublicationError {
  const said = Array.from(plainText(reason));
  const short =
    said.length > REASON_LIMIT ? `${said.slice(0, REASON_LIMIT - 1).join('')}…` : said.join('');
  const after = [429, 503].includes(res.status) ? retryAfterMs(res.headers) : undefined;
  const resetAt =
    res.status === 429
      ? (rateLimitResetAt(res.headers) ??
        (after === undefined ? opts.resetWhenUnsaid?.() : undefined))
      : undefined;
  return new PublicationError(`${platform} answered ${res.status}: ${short || 'no reason given'}`, {
    retryable: res.status >= 500 || res.status === 429,
    reconnect: opts.reconnect,
    retryAfterMs: after,
    retryAt: resetAt,
    status: res.status,
  });
}
