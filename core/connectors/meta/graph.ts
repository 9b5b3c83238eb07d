// Calling one of Meta's Graph hosts (Threads, Instagram) as a connected account: the token as
// the `access_token` parameter, every other parameter in the query string, as Meta's pages
// write their calls; and Meta's errors (`{error: {message, type, code, error_subcode,
// error_user_msg, fbtrace_id}}`) mapped as its error-handling and rate-limiting pages list
// them: 4, 17, 32, 341, 613 are throttles, waited out until the usage headers say access comes
// back; 190 is a dead token, refreshed once and then a reconnect; 368 (a policy block) and 506
// (a duplicate) are final, quoting Meta's reason; a 5xx or a transient error is retried.
// Docs: developers.facebook.com/docs/graph-api/guides/error-handling, …/overview/rate-limiting.
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import { type AccessTokens, type ConnectedAccountAccess, PublicationError } from '../connector.ts';
import {
  documented,
  type PlatformResponse,
  platformRequest,
  REASON_LIMIT,
  retryAfterMs,
} from '../http.ts';
import { plainText } from '../readings.ts';

/** Meta's object ids (users, containers, media) are decimal numbers written as strings. */
export const GraphId = z.string().regex(/^[0-9]{1,40}$/, 'not a Meta id');

/** GraphId's answer to a creation (`{"id": "..."}`). */
export const Created = z.object({ id: GraphId });

/** The error codes that mean a rate limit or a throttle (Graph API error handling). */
const THROTTLES = new Set([4, 17, 32, 341, 613]);
/** A dead, expired or revoked access token. */
export const TOKEN_DEAD = 190;
/** Codes whose failure is Meta's own and passing (unknown, service, transient). */
const TRANSIENT = new Set([1, 2]);
/** When a throttle says nothing of its end: Meta's Platform rate limits roll over an hour. */
const THROTTLE_UNSAID_MS = 60 * 60_000;

export type GraphError = {
  code: number | undefined;
  subcode: number | undefined;
  /** Meta's reason: its message for the person when it has one, else its message. */
  reason: string;
  transient: boolean;
};

const ErrorBody = z.object({
  error: z.object({
    message: z.string().max(5000).optional().catch(undefined),
    code: z.number().int().optional().catch(undefined),
    error_subcode: z.number().int().optional().catch(undefined),
    error_user_msg: z.string().max(5000).optional().catch(undefined),
    is_transient: z.boolean().optional().catch(undefined),
  }),
});

/** The Graph error an answer carries, if it has that shape. */
export function graphErrorOf(res: PlatformResponse): GraphError | undefined {
  const parsed = ErrorBody.safeParse(res.json);
  if (!parsed.success) return undefined;
  const e = parsed.data.error;
  const said = [e.message, e.error_user_msg]
    .map((t) => (t ? plainText(t) : ''))
    .filter((t, i, all) => t && all.indexOf(t) === i);
  return {
    code: e.code,
    subcode: e.error_subcode,
    reason: said.join(': ').slice(0, REASON_LIMIT * 2) || 'no reason given',
    transient: e.is_transient === true,
  };
}

const UsageEntry = z.object({
  estimated_time_to_regain_access: z.number().min(0).max(10_000).optional().catch(undefined),
});
const BusinessUsage = z.record(z.string(), z.array(UsageEntry).max(50)).catch({});

/**
 * When a throttled caller may call again, from Meta's usage headers: the longest
 * `estimated_time_to_regain_access` (minutes) of `X-Business-Use-Case-Usage`, or of
 * `X-Ad-Account-Usage`/`X-App-Usage` where they carry one; undefined when none says.
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
  for (const entries of Object.values(BusinessUsage.parse(read('x-business-use-case-usage'))))
    for (const e of entries)
      if (e.estimated_time_to_regain_access) minutes.push(e.estimated_time_to_regain_access);
  for (const name of ['x-app-usage', 'x-ad-account-usage']) {
    const m = UsageEntry.safeParse(read(name));
    if (m.success && m.data.estimated_time_to_regain_access)
      minutes.push(m.data.estimated_time_to_regain_access);
  }
  return minutes.length ? new Date(now + Math.max(...minutes) * 60_000) : undefined;
}

/** A refusal Meta answered with a Graph error: its code and subcode, for callers that read them. */
export class GraphRefusal extends PublicationError {
  readonly code: number | undefined;
  readonly subcode: number | undefined;
  constructor(
    message: string,
    opts: ConstructorParameters<typeof PublicationError>[1] & { error: GraphError | undefined },
  ) {
    super(message, opts);
    this.code = opts.error?.code;
    this.subcode = opts.error?.subcode;
  }
}

/**
 * The failure for a Graph refusal (a non-2xx answer, or a 2xx carrying an error). Throttles
 * are retryable at the reset the usage headers give (else Retry-After, else in an hour);
 * 190 asks for a reconnect (the caller has refreshed once already); 368 and 506 and every
 * other refusal are final; 5xx and Meta's transient codes are retried.
 */
export function graphRefusal(platform: string, res: PlatformResponse): GraphRefusal {
  const e = graphErrorOf(res);
  const said = e?.reason ?? 'no reason given';
  const code = e?.code;
  const answered = `${platform} answered ${res.status}${code !== undefined ? ` (code ${code})` : ''}`;
  if ((code !== undefined && THROTTLES.has(code)) || res.status === 429) {
    const after = retryAfterMs(res.headers);
    const at = usageResetAt(res.headers) ?? new Date(Date.now() + (after ?? THROTTLE_UNSAID_MS));
    return new GraphRefusal(
      `${answered}: ${said} The publication waits for the limit to reset (${at.toISOString()}).`,
      { retryable: true, retryAt: at, status: res.status, error: e },
    );
  }
  if (code === TOKEN_DEAD)
    return new GraphRefusal(`${answered}: ${said} Reconnect the account.`, {
      retryable: false,
      reconnect: true,
      status: res.status,
      error: e,
    });
  if (code === 368)
    return new GraphRefusal(`${platform} blocked the post under its policies: ${said}`, {
      retryable: false,
      status: res.status,
      error: e,
    });
  if (code === 506)
    return new GraphRefusal(
      `${platform} refused the post as a duplicate of one the account already has: ${said}`,
      { retryable: false, status: res.status, error: e },
    );
  const transient =
    res.status >= 500 || e?.transient || (code !== undefined && TRANSIENT.has(code));
  return new GraphRefusal(`${answered}: ${said}`, {
    retryable: Boolean(transient),
    retryAfterMs: res.status === 503 ? retryAfterMs(res.headers) : undefined,
    status: res.status,
    error: e,
  });
}

/** Whether an answer is Meta's dead-token refusal (190; Threads answers it 401, others 400). */
const tokenDead = (res: PlatformResponse) =>
  graphErrorOf(res)?.code === TOKEN_DEAD || (res.status === 401 && !graphErrorOf(res));

export type GraphCall = (
  method: 'GET' | 'POST',
  path: string,
  params?: Record<string, string>,
) => Promise<PlatformResponse>;

/** Tokens for an account the connection layer gave none: the stored token, as it is. */
function storedTokens(platform: string, access: ConnectedAccountAccess): AccessTokens {
  const token = access.credentials.access_token;
  const dead = () =>
    new PublicationError(`The ${platform} account has no usable access token; reconnect it.`, {
      retryable: false,
      reconnect: true,
    });
  return {
    async current() {
      if (typeof token !== 'string' || !token) throw dead();
      return token;
    },
    async refused() {
      throw dead();
    },
  };
}

/**
 * Calls `apiUrl` + path as the account; answers 2xx responses without a Graph error and throws
 * the rest (graphRefusal). A dead token (190) is refreshed once (`tokens.refused`) and the
 * call made again; a second refusal asks for a reconnect.
 */
export function graphClient(deps: {
  policy: OutboundPolicy;
  platform: string;
  apiUrl: string;
  account: ConnectedAccountAccess;
  timeoutMs: number;
}): GraphCall {
  const tokens = deps.account.tokens ?? storedTokens(deps.platform, deps.account);
  const send = (
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, string>,
    token: string,
  ) => {
    const query = new URLSearchParams({ ...params, access_token: token });
    return platformRequest(deps.policy, deps.platform, `${deps.apiUrl}${path}?${query}`, {
      method,
      headers: { accept: 'application/json' },
      timeoutMs: deps.timeoutMs,
    });
  };
  return async (method, path, params = {}) => {
    const token = await tokens.current();
    let res = await send(method, path, params, token);
    if (tokenDead(res)) res = await send(method, path, params, await tokens.refused(token));
    if (res.status >= 200 && res.status < 300 && !graphErrorOf(res)) return res;
    throw graphRefusal(deps.platform, res);
  };
}

/** GET `path` read as `schema` documents its answer. */
export async function getDocumented<S extends z.ZodType>(
  call: GraphCall,
  platform: string,
  path: string,
  params: Record<string, string>,
  schema: S,
): Promise<z.output<S>> {
  return documented(platform, `GET ${path}`, await call('GET', path, params), schema);
}
