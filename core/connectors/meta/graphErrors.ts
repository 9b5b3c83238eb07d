// Meta's Graph errors, read once for Threads, Instagram and Facebook Pages: Meta's errors
// (`{error: {message, type, code, error_subcode, error_user_title, error_user_msg,
// fbtrace_id}}`) are mapped as its error-handling and rate-limiting pages list them (the one table is docs/platforms.md's "Meta's Graph errors").
// Docs: developers.facebook.com/docs/graph-api/guides/error-handling, …/overview/rate-limiting,
// …/instagram-platform/instagram-graph-api/reference/error-codes, …/threads/troubleshooting.
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { PublicationError } from '../connector.ts';
import { type PlatformResponse, REASON_LIMIT, retryAfterMs } from '../http.ts';
import { plainText } from '../readings.ts';

/**
 * Throttles: 4 app, 17 user, 32 Page, 341 application limit, 613 calls over the rate (error
 * handling, rate limiting), and the Business Use Case limits of Pages (80001) and Instagram
 * (80002), which Page tokens and Instagram calls fall under.
 */
const THROTTLES = new Set([4, 17, 32, 341, 613, 80001, 80002]);
/** 190: an expired, invalidated or revoked token; 102: the session behind it is gone. */
const TOKEN_DEAD = new Set([190, 102]);
/** Codes whose failure is Meta's own and passing (unknown, service). */
const TRANSIENT = new Set([1, 2]);
/** A policy block ("temporarily blocked for policies violations"). */
const POLICY_BLOCK = 368;
/** A duplicate post ("cannot post duplicate posts consecutively"). */
export const DUPLICATE = 506;
/** Instagram's media_publish refusal when the account's 24-hour publishing limit is spent. */
export const PUBLISHING_LIMIT_REACHED = 2207042;
/**
 * When a throttle says nothing of its end: Platform rate limits roll over an hour, and a call
 * made while throttled counts toward the limit, so one wait of the window is the safe one.
 */
export const THROTTLE_UNSAID_MS = 60 * 60_000;
/** Permission errors: a permission not granted or since removed (10, 200-299): a reconnect. */
export const isPermissionError = (code: number | undefined) =>
  code === 10 || (code !== undefined && code >= 200 && code <= 299);

export type GraphError = {
  code: number | undefined;
  subcode: number | undefined;
  /** Meta's reason: its message, and its title and message for the person when it has them. */
  reason: string;
  transient: boolean;
};

const said = z.string().max(5000).optional().catch(undefined);
const ErrorBody = z.object({
  error: z.object({
    message: said,
    code: z.number().int().optional().catch(undefined),
    error_subcode: z.number().int().optional().catch(undefined),
    // Instagram puts its reason here ("Media download has failed. ...").
    error_user_title: said,
    error_user_msg: said,
    is_transient: z.boolean().optional().catch(undefined),
  }),
});

/** Meta's sentences run on after a full stop; a title or a bare phrase takes a colon. */
const joinSaid = (text: string, part: string) =>
  !text ? part : `${text}${/[.!?]$/.test(text) ? ' ' : ': '}${part}`;

/** The Graph error an answer carries, if it has that shape. */
export function graphErrorOf(res: PlatformResponse): GraphError | undefined {
  const parsed = ErrorBody.safeParse(res.json);
  if (!parsed.success) return undefined;
  const e = parsed.data.error;
  const parts = [e.message, e.error_user_title, e.error_user_msg]
    .map((t) => (t ? plainText(t) : ''))
    .filter((t, i, all) => t && all.indexOf(t) === i);
  return {
    code: e.code,
    subcode: e.error_subcode,
    reason: parts.reduce(joinSaid, '').slice(0, REASON_LIMIT * 2) || 'no reason given',
    transient: e.is_transient === true,
  };
}

const UsageEntry = z.object({
  estimated_time_to_regain_access: z.number().min(0).optional().catch(undefined),
});
const BusinessUsage = z.record(z.string(), z.array(UsageEntry).max(50)).catch({});
/** The longest wait a usage header is believed for (its minutes, capped at a day). */
const USAGE_CAP_MINUTES = 24 * 60;

/**
 * When a throttled caller may call again, from Meta's usage headers: the longest
 * `estimated_time_to_regain_access` (minutes) of `X-Business-Use-Case-Usage`, or of
 * `X-App-Usage`/`X-Page-Usage`/`X-Ad-Account-Usage` where they carry one; undefined when
 * none says.
 */
export function usageResetAt(headers: IncomingHttpHeaders, now = Date.now()): Date | undefined {
  const read = (name: string) => {
    const v = headers[name];
    if (typeof v !== 'string' || v.length > 20_000) return undefined;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return undefined;
    }
  };
  const minutes: number[] = [];
  const take = (m: number | undefined) => {
    if (m && Number.isFinite(m)) minutes.push(Math.min(m, USAGE_CAP_MINUTES));
  };
  for (const entries of Object.values(BusinessUsage.parse(read('x-business-use-case-usage'))))
    for (const e of entries) take(e.estimated_time_to_regain_access);
  for (const name of ['x-app-usage', 'x-page-usage', 'x-ad-account-usage']) {
    const m = UsageEntry.safeParse(read(name));
    if (m.success) take(m.data.estimated_time_to_regain_access);
  }
  return minutes.length ? new Date(now + Math.max(...minutes) * 60_000) : undefined;
}

/** A refusal Meta answered with a Graph error: its code, subcode and reason, for callers. */
export class GraphRefusal extends PublicationError {
  readonly code: number | undefined;
  readonly subcode: number | undefined;
  /** Meta's reason as graphErrorOf read it. */
  readonly reason: string;
  constructor(
    message: string,
    opts: ConstructorParameters<typeof PublicationError>[1] & { error: GraphError | undefined },
  ) {
    super(message, opts);
    this.code = opts.error?.code;
    this.subcode = opts.error?.subcode;
    this.reason = opts.error?.reason ?? 'no reason given';
  }
}

/** Whether `err` is Meta's 506: the account already has this post. */
export const isDuplicate = (err: unknown): err is GraphRefusal =>
  err instanceof GraphRefusal && err.code === DUPLICATE;

/**
 * Meta's answer to publishing a container it has not finished: Threads' "Media Not Found"
 * (code 24, subcode 4279009) and Instagram's "media is not ready for publishing" (code 9007,
 * subcode 2207027). Nothing was published; the container is published once it is ready.
 */
export const notReadyYet = (err: unknown): err is GraphRefusal =>
  err instanceof GraphRefusal &&
  ((err.code === 24 && err.subcode === 4279009) || (err.code === 9007 && err.subcode === 2207027));

/**
 * The failure for a Graph refusal (a non-2xx answer, or a 2xx carrying an error). Throttles
 * (and Instagram's spent publishing limit) wait until the usage headers say access returns,
 * else Retry-After, else THROTTLE_UNSAID_MS; a dead token (the caller has refreshed once
 * already), a 401 and a missing permission ask for a reconnect; 368 and 506 are final,
 * quoting Meta; 5xx and Meta's transient codes are retried; every other refusal is final.
 */
export function graphRefusal(
  platform: string,
  res: PlatformResponse,
  now = Date.now(),
): GraphRefusal {
  const e = graphErrorOf(res);
  const reason = e?.reason ?? 'no reason given';
  const code = e?.code;
  const answered = `${platform} answered ${res.status}${code !== undefined ? ` (code ${code})` : ''}`;
  const limitSpent = e?.subcode === PUBLISHING_LIMIT_REACHED;
  if ((code !== undefined && THROTTLES.has(code)) || res.status === 429 || limitSpent) {
    const after = retryAfterMs(res.headers, now);
    const at = usageResetAt(res.headers, now) ?? new Date(now + (after ?? THROTTLE_UNSAID_MS));
    return new GraphRefusal(
      `${answered}: ${reason} The publication waits for the limit to reset (${at.toISOString()}).`,
      { retryable: true, retryAt: at, status: res.status, error: e },
    );
  }
  if ((code !== undefined && TOKEN_DEAD.has(code)) || res.status === 401)
    return new GraphRefusal(`${answered}: ${reason} Reconnect the account.`, {
      retryable: false,
      reconnect: true,
      status: res.status,
      error: e,
    });
  if (isPermissionError(code))
    return new GraphRefusal(
      `${answered}: ${reason} Reconnect the account, granting the permissions it asks for.`,
      { retryable: false, reconnect: true, status: res.status, error: e },
    );
  if (code === POLICY_BLOCK)
    return new GraphRefusal(`${platform} blocked the post under its policies: ${reason}`, {
      retryable: false,
      status: res.status,
      error: e,
    });
  if (code === DUPLICATE)
    return new GraphRefusal(
      `${platform} refused the post as a duplicate of one the account already has: ${reason}`,
      { retryable: false, status: res.status, error: e },
    );
  const transient =
    res.status >= 500 || e?.transient || (code !== undefined && TRANSIENT.has(code));
  return new GraphRefusal(`${answered}: ${reason}`, {
    retryable: Boolean(transient),
    retryAfterMs: res.status === 503 ? retryAfterMs(res.headers, now) : undefined,
    status: res.status,
    error: e,
  });
}

/** Whether Meta refused the token itself, so that a refreshed one may pass. */
export const tokenRefused = (res: PlatformResponse) => {
  const code = graphErrorOf(res)?.code;
  return (code !== undefined && TOKEN_DEAD.has(code)) || (res.status === 401 && code === undefined);
};
