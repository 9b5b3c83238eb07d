// Calling X's API v2 as a connected account: every request through the outbound guard with the
// account's bearer token, a 401 answered by one refresh and one more try, and X's refusals
// mapped as the docs describe them (docs.x.com: fundamentals/rate-limits, response codes):
// 429 waits for the reset of its spent rate limit, 5xx is retried, other refusals are final and quote X's
// own `detail`, `title` or `errors[].message`.
import { z } from 'zod';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import { type ConnectedAccountAccess, PublicationError } from '../connector.ts';
import {
  documented,
  type PlatformRequest,
  type PlatformResponse,
  platformRequest,
  REASON_LIMIT,
  refusal,
} from '../http.ts';
import { plainText } from '../readings.ts';

export const X = 'X';

/** X's post and user ids are decimal numbers (openapi.json: TweetId, UserId, `^[0-9]{1,19}$`). */
export const TweetId = z.string().regex(/^[0-9]{1,19}$/, 'not an X id');
/** GET /2/users/me: the account's id and username. */
export const Me = z.object({
  data: z.object({ id: TweetId, username: z.string().regex(/^\w{1,50}$/) }),
});

/** X's own reason for a refusal: its problem's detail or title, and each error's message. */
export function reasonOf(res: PlatformResponse): string {
  const json = res.json;
  if (typeof json !== 'object' || json === null) return 'no reason given';
  const body = json as Record<string, unknown>;
  const said: string[] = [];
  for (const key of ['detail', 'title', 'error_description', 'error'])
    if (typeof body[key] === 'string' && said.length === 0) said.push(body[key]);
  if (Array.isArray(body.errors))
    for (const e of body.errors.slice(0, 5))
      if (typeof e === 'object' && e && typeof (e as { message?: unknown }).message === 'string')
        said.push((e as { message: string }).message);
  // Sentences one after another: "...was invalid. Your media IDs are invalid."
  const sentence = (t: string) => (/[.!?]$/.test(t.trim()) ? t.trim() : `${t.trim()}.`);
  const text = plainText([...new Set(said)].map(sentence).join(' '));
  return text ? text.slice(0, REASON_LIMIT * 2) : 'no reason given';
}

/**
 * The failure for a non-2xx answer of X's; a 429 is rescheduled at the latest reset among the
 * limits it says are spent, the 24-hour caps included (http.ts's rateLimitResetAt).
 */
export function xRefusal(res: PlatformResponse): PublicationError {
  return refusal(X, res, reasonOf(res), { reconnect: res.status === 401 });
}

/**
 * X's 403 for a post whose text the account posted recently: "...with duplicate content."
 * in its `detail` (seen 2026-02-12) or an error's message, or v1.1's "Status is a duplicate."
 * (code 187), which clients still report from v2.
 */
export const isDuplicate = (err: unknown) =>
  err instanceof PublicationError &&
  err.status === 403 &&
  /duplicate content|is a duplicate/i.test(err.message);

/** Failures of a request's own exchange with X, as against those of getting its token. */
const ofExchange = new WeakSet<object>();

/**
 * Whether `err` came from sending a request or reading its answer (X may have acted on it),
 * not from getting a token for it (X never saw the request).
 */
export const failedInExchange = (err: unknown) =>
  typeof err === 'object' && err !== null && ofExchange.has(err);

function exchange(policy: OutboundPolicy, url: string, init: PlatformRequest) {
  return platformRequest(policy, X, url, init).catch((err: unknown) => {
    if (typeof err === 'object' && err !== null) ofExchange.add(err);
    throw err;
  });
}

export type XCall = (
  path: string,
  init: Omit<PlatformRequest, 'timeoutMs'> & { json?: unknown },
) => Promise<PlatformResponse>;

/**
 * Calls on `apiUrl` as the account: the token is the connection's fresh one (`tokens`), or the
 * stored access token where the connection layer gives none; a 401 spends one refresh and
 * tries once more, and a second 401 asks for a reconnect.
 */
export function xClient(
  policy: OutboundPolicy,
  apiUrl: string,
  account: ConnectedAccountAccess,
  timeoutMs: number,
): XCall {
  const stored = account.credentials.access_token;
  const current = async () => {
    if (account.tokens) return account.tokens.current();
    if (typeof stored !== 'string' || !stored)
      throw new PublicationError('The X account has no access token; reconnect it.', {
        retryable: false,
        reconnect: true,
      });
    return stored;
  };
  const send = (path: string, init: Parameters<XCall>[1], token: string) => {
    const { json, ...rest } = init;
    return exchange(policy, `${apiUrl}${path}`, {
      ...rest,
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      headers: {
        authorization: `Bearer ${token}`,
        ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...rest.headers,
      },
      timeoutMs,
    });
  };
  return async (path, init) => {
    const token = await current();
    let res = await send(path, init, token);
    if (res.status === 401 && account.tokens)
      res = await send(path, init, await account.tokens.refused(token));
    if (res.status >= 200 && res.status < 300) return res;
    throw xRefusal(res);
  };
}

/** GET `path`, read as `schema` documents its answer. */
export async function getDocumented<S extends z.ZodType>(call: XCall, path: string, schema: S) {
  const what = `GET ${path.split('?')[0]}`;
  return documented(X, what, await call(path, { method: 'GET' }), schema);
}
