// Calling the Graph API as a connected Facebook Page: every request through the outbound guard
// with the Page token (as a bearer header and Graph's `access_token`), on one Graph version;
// an expired token (code 190) refreshed once and tried again; Graph's refusals mapped as its
// error-handling and rate-limiting pages list them: throttling (4, 17, 32, 341, 613, 80001)
// rescheduled when the usage headers say access returns, a dead token a reconnect, a policy
// block (368) or anything else final, quoting Facebook's own message.
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
import { GRAPH_VERSION } from '../oauth/metaTokens.ts';
import { plainText } from '../readings.ts';

export const FACEBOOK = 'Facebook';

/** A Page's, photo's or video's id: decimal. */
export const ObjectId = z.string().regex(/^\d{1,40}$/, 'not a Facebook id');
/** A Page post's id as Graph gives it: `{page-id}_{post-id}`. */
export const PostId = z.string().regex(/^\d{1,40}_\d{1,40}$/, 'not a Facebook post id');

/** Graph's error body: `{error: {message, type, code, error_subcode, error_user_msg, ...}}`. */
const GraphErrorBody = z.object({
  error: z.object({
    message: z.string().max(5000).optional().catch(undefined),
    code: z.number().int().optional().catch(undefined),
    error_subcode: z.number().int().optional().catch(undefined),
    error_user_msg: z.string().max(5000).optional().catch(undefined),
    is_transient: z.boolean().optional().catch(undefined),
  }),
});

export type GraphError = { code?: number; subcode?: number; message: string; transient: boolean };

export function graphErrorOf(res: PlatformResponse): GraphError {
  const parsed = GraphErrorBody.safeParse(res.json);
  if (!parsed.success) return { message: 'no reason given', transient: false };
  const e = parsed.data.error;
  const said = [e.message, e.error_user_msg].filter((s): s is string => !!s?.trim());
  const message = plainText([...new Set(said)].join(' ')).slice(0, REASON_LIMIT * 2);
  return {
    code: e.code,
    subcode: e.error_subcode,
    message: message || 'no reason given',
    transient: e.is_transient === true,
  };
}

/**
 * Graph's throttling codes: 4 app, 17 user, 32 Page, 341 application limit, 613 calls over
 * the rate, 80001 a Page's Business Use Case limit.
 */
export const THROTTLED = new Set([4, 17, 32, 341, 613, 80001]);
/** Expired or invalidated token (subcodes 458-467: expired, password changed, logged out...). */
export const TOKEN_DEAD = 190;
/** The post is refused by Facebook's policies ("temporarily blocked"). */
export const POLICY_BLOCK = 368;
/** "Duplicate status message": the Page posted this text recently. */
export const DUPLICATE = 506;
/** Permission errors: the token lacks a permission the call needs (10, 200-299). */
export const isPermissionError = (code: number | undefined) =>
  code === 10 || (code !== undefined && code >= 200 && code <= 299);

/**
 * How long until access returns, from the usage headers: the largest
 * `estimated_time_to_regain_access` (minutes) in `x-business-use-case-usage` (per business
 * object, a list of usages) and `x-app-usage` / `x-page-usage` (one usage).
 */
export function regainAccessMs(headers: IncomingHttpHeaders): number | undefined {
  const minutes: number[] = [];
  const read = (usage: unknown) => {
    if (typeof usage !== 'object' || usage === null) return;
    const m = (usage as { estimated_time_to_regain_access?: unknown })
      .estimated_time_to_regain_access;
    if (typeof m === 'number' && Number.isFinite(m) && m > 0) minutes.push(Math.min(m, 24 * 60));
  };
  const parse = (name: string) => {
    const raw = headers[name];
    if (typeof raw !== 'string' || raw.length > 10_000) return undefined;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return undefined;
    }
  };
  const buc = parse('x-business-use-case-usage');
  if (typeof buc === 'object' && buc !== null)
    for (const usages of Object.values(buc).slice(0, 50))
      if (Array.isArray(usages)) for (const u of usages.slice(0, 20)) read(u);
  read(parse('x-app-usage'));
  read(parse('x-page-usage'));
  return minutes.length ? Math.max(...minutes) * 60_000 : undefined;
}

/**
 * When a throttled call is tried again and the usage headers do not say: Graph's windows roll
 * over an hour, and a Page's limit recovers in minutes; the job asks again after this.
 */
export const THROTTLE_DEFAULT_WAIT_MS = 15 * 60_000;

/** A refusal of Facebook's, with its Graph code for the callers that read it (506). */
export class GraphRefusal extends PublicationError {
  readonly graph: GraphError;
  constructor(
    message: string,
    graph: GraphError,
    opts: ConstructorParameters<typeof PublicationError>[1],
  ) {
    super(message, opts);
    this.graph = graph;
  }
}

/** The failure for a non-2xx answer of Graph's. */
export function graphRefusal(res: PlatformResponse, now = Date.now()): GraphRefusal {
  const graph = graphErrorOf(res);
  const text = `${FACEBOOK} answered ${res.status}${graph.code !== undefined ? ` (code ${graph.code})` : ''}: ${graph.message}`;
  if ((graph.code !== undefined && THROTTLED.has(graph.code)) || res.status === 429) {
    const wait = regainAccessMs(res.headers) ?? retryAfterMs(res.headers, now);
    return new GraphRefusal(text, graph, {
      retryable: true,
      retryAt: new Date(now + (wait ?? THROTTLE_DEFAULT_WAIT_MS)),
      status: res.status,
    });
  }
  const dead = graph.code === TOKEN_DEAD || graph.code === 102 || res.status === 401;
  return new GraphRefusal(text, graph, {
    retryable:
      !dead && (res.status >= 500 || graph.transient || graph.code === 1 || graph.code === 2),
    reconnect: dead || isPermissionError(graph.code),
    status: res.status,
  });
}

/** Whether `err` is Facebook's 506: the Page already posted this text. */
export const isDuplicate = (err: unknown) =>
  err instanceof GraphRefusal && err.graph.code === DUPLICATE;

/** Whether Facebook refused the token itself (a refresh may help). */
const tokenRefused = (res: PlatformResponse) =>
  res.status === 401 || graphErrorOf(res).code === TOKEN_DEAD;

/** Tokens where the connection layer gave none: the stored Page token, as it is. */
function storedTokens(access: ConnectedAccountAccess): AccessTokens {
  const token = access.credentials.access_token;
  return {
    async current() {
      if (typeof token !== 'string' || !token)
        throw new PublicationError('The Facebook Page has no access token; reconnect it.', {
          retryable: false,
          reconnect: true,
        });
      return token;
    },
    async refused() {
      throw new PublicationError('Facebook refused the Page token; reconnect the Page.', {
        retryable: false,
        reconnect: true,
      });
    },
  };
}

/** A file part of a multipart body. */
export type FilePart = { filename: string; mime: string; bytes: Buffer };

/** What one Graph call sends: form fields, or a multipart body when it carries a file. */
export type GraphInit = {
  method: 'GET' | 'POST';
  /** Query parameters (GET) or form fields (POST). */
  fields?: Record<string, string>;
  /** A file sent as multipart/form-data with `fields` beside it. */
  file?: { name: string } & FilePart;
  timeoutMs?: number;
};

export type GraphCall = (
  host: 'api' | 'video',
  path: string,
  init: GraphInit,
) => Promise<PlatformResponse>;

async function multipart(fields: Record<string, string>, file: NonNullable<GraphInit['file']>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append(
    file.name,
    new Blob([new Uint8Array(file.bytes)], { type: file.mime }),
    file.filename,
  );
  const encoded = new Request('http://form.invalid', { method: 'POST', body: form });
  return {
    contentType: encoded.headers.get('content-type')!,
    body: Buffer.from(await encoded.arrayBuffer()),
  };
}

/**
 * Calls on `hosts.apiUrl` (FACEBOOK_API_URL) or `hosts.videoUrl` (FACEBOOK_VIDEO_URL) under
 * GRAPH_VERSION as the Page; answers 2xx responses and throws the rest as GraphRefusals. A
 * refused token is refreshed once (the connection layer refetches the Page token with the
 * long-lived user token) and the call made again.
 */
export function graphClient(
  policy: OutboundPolicy,
  hosts: { apiUrl: string; videoUrl: string },
  access: ConnectedAccountAccess,
  timeoutMs: number,
): GraphCall {
  const tokens = access.tokens ?? storedTokens(access);
  const send = async (host: 'api' | 'video', path: string, init: GraphInit, token: string) => {
    const base = `${host === 'video' ? hosts.videoUrl : hosts.apiUrl}/${GRAPH_VERSION}${path}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
    };
    // The token also goes as `access_token`, the parameter every Graph example uses; no
    // message or log of ours carries a request's address or body.
    const fields = { ...init.fields, access_token: token };
    let url = base;
    let body: Buffer | string | undefined;
    if (init.method === 'GET') url = `${base}?${new URLSearchParams(fields)}`;
    else if (init.file) {
      const encoded = await multipart(fields, init.file);
      headers['content-type'] = encoded.contentType;
      body = encoded.body;
    } else {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(fields).toString();
    }
    return platformRequest(policy, FACEBOOK, url, {
      method: init.method,
      headers,
      body,
      timeoutMs: init.timeoutMs ?? timeoutMs,
    });
  };
  return async (host, path, init) => {
    const token = await tokens.current();
    let res = await send(host, path, init, token);
    if (tokenRefused(res)) res = await send(host, path, init, await tokens.refused(token));
    if (res.status >= 200 && res.status < 300) return res;
    throw graphRefusal(res);
  };
}

/** GET `path` with `fields`, read as `schema` documents its answer. */
export async function getDocumented<S extends z.ZodType>(
  call: GraphCall,
  path: string,
  query: Record<string, string>,
  schema: S,
) {
  const res = await call('api', path, { method: 'GET', fields: query });
  return documented(FACEBOOK, `GET ${path}`, res, schema);
}

/**
 * A permalink as Facebook gives it (`permalink_url`): a post's is a full address, a video's a
 * path on www.facebook.com. Anything but an https address on facebook.com is none.
 */
export function permalinkFrom(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2000) return null;
  const full = value.startsWith('/') ? `https://www.facebook.com${value}` : value;
  if (!URL.canParse(full)) return null;
  const url = new URL(full);
  const host = url.hostname.toLowerCase();
  return url.protocol === 'https:' && (host === 'facebook.com' || host.endsWith('.facebook.com'))
    ? url.toString()
    : null;
}
