// One HTTP exchange with a platform, through the outbound guard, and the mapping of its
// failures that every connector shares: no answer, 5xx and 429 are retryable (429 and 503 with
// their Retry-After), other 4xx are final.
import type { IncomingHttpHeaders } from 'node:http';
import { type OutboundPolicy, resolveChecked, sendChecked } from '../outbound/guard.ts';
import { PublicationError } from './connector.ts';

/** How long one platform request may take unless a connector is told otherwise. */
export const PLATFORM_TIMEOUT_MS = 30_000;

export type PlatformResponse = {
  status: number;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
};

export type PlatformRequest = {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Buffer | string;
  timeoutMs: number;
};

/** Sends the request; a network error or timeout is a retryable PublicationError. */
export async function platformRequest(
  policy: OutboundPolicy,
  platform: string,
  url: string,
  init: PlatformRequest,
): Promise<PlatformResponse> {
  let res: Awaited<ReturnType<typeof sendChecked>>;
  try {
    const target = await resolveChecked(url, policy);
    res = await sendChecked(target, {
      method: init.method,
      headers: init.headers ?? {},
      body: init.body,
      timeoutMs: init.timeoutMs,
      maxResponseBytes: 1024 * 1024,
    });
  } catch (err) {
    throw new PublicationError(`${platform} could not be reached: ${(err as Error).message}`, {
      retryable: true,
      cause: err,
    });
  }
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
  } catch {}
  return { status: res.status, headers: res.headers, json };
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), when the header has one. */
export function retryAfterMs(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const value = headers['retry-after'];
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The failure for a non-2xx answer, with the platform's own reason in the message. */
export function refusal(
  platform: string,
  res: PlatformResponse,
  reason: string,
  opts: { reconnect?: boolean } = {},
): PublicationError {
  return new PublicationError(`${platform} answered ${res.status}: ${reason}`, {
    retryable: res.status >= 500 || res.status === 429,
    reconnect: opts.reconnect,
    retryAfterMs: retryAfterMs(res.headers),
  });
}
