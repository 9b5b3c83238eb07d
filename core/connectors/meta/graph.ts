// Calling Meta's Graph hosts (Threads, Instagram, Facebook Pages) as a connected account. The
// token goes as a bearer header and as Graph's `access_token` parameter; a GET's parameters in
// the query string, a POST's in a form body (multipart when it carries a file) and, for
// Threads and Instagram, whose pages write every call with its parameters in the address,
// in the query string too, as long as the address stays short (QUERY_MAX). No message or log
// of ours carries a request's address. A refusal is mapped by ./graphErrors.ts.
import { z } from 'zod';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import { type AccessTokens, type ConnectedAccountAccess, PublicationError } from '../connector.ts';
import { documented, type PlatformResponse, platformRequest } from '../http.ts';
import { graphErrorOf, graphRefusal, tokenRefused } from './graphErrors.ts';

/**
 * The longest query string a POST repeats its fields in: proxies and servers refuse addresses
 * past about 8 KB, and an Instagram caption of 2,200 emoji would be ~26 KB encoded.
 */
export const QUERY_MAX = 4_096;

/** `fields` as a query string, leaving out the longest ones (a caption) until it fits. */
function inQuery(fields: Record<string, string>): string {
  const kept = { ...fields };
  let query = new URLSearchParams(kept).toString();
  while (query.length > QUERY_MAX) {
    const longest = Object.keys(kept).reduce((a, b) =>
      kept[a]!.length >= kept[b]!.length ? a : b,
    );
    delete kept[longest];
    query = new URLSearchParams(kept).toString();
  }
  return query;
}

/** The Graph API version of the versioned Meta calls (Facebook; Instagram's). */
export const GRAPH_VERSION = 'v25.0';

/** Meta's object ids (users, containers, media, Pages) are decimal numbers written as strings. */
export const GRAPH_ID = /^[0-9]{1,40}$/;
export const GraphId = z.string().regex(GRAPH_ID, 'not a Meta id');

/** GraphId's answer to a creation (`{"id": "..."}`). */
export const Created = z.object({ id: GraphId });

/** A file sent as a multipart part (`name` is its field) beside the call's fields. */
export type GraphFile = { name: string; filename: string; mime: string; bytes: Buffer };

export type GraphCall = (
  method: 'GET' | 'POST',
  path: string,
  params?: Record<string, string>,
  opts?: {
    /** The video host (Facebook's FACEBOOK_VIDEO_URL) rather than the API host. */
    host?: 'api' | 'video';
    /** Sent as multipart/form-data with the params beside it. */
    file?: GraphFile;
  },
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

async function multipart(fields: Record<string, string>, file: GraphFile) {
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
 * Calls `apiUrl` (or `videoUrl`) + path as the account; answers 2xx responses without a Graph
 * error and throws the rest (graphRefusal). A refused token (190, 102, a bare 401) is
 * refreshed once (`tokens.refused`) and the call made again; a second refusal asks for a
 * reconnect.
 */
export function graphClient(deps: {
  policy: OutboundPolicy;
  platform: string;
  /** The API host with any version prefix the paths leave out, without a trailing slash. */
  apiUrl: string;
  /** The video host, for the calls that ask for it. */
  videoUrl?: string;
  account: ConnectedAccountAccess;
  timeoutMs: number;
  /**
   * A POST's fields go in the query (up to QUERY_MAX) as well as in the form body. Threads'
   * and Instagram's pages write every call with its parameters in the query, newer pages in
   * the body; Meta reads both, so both are sent and a reader of either finds them.
   */
  paramsInQuery?: boolean;
}): GraphCall {
  const tokens = deps.account.tokens ?? storedTokens(deps.platform, deps.account);
  const send = async (
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, string>,
    opts: Parameters<GraphCall>[3],
    token: string,
  ) => {
    const host = opts?.host === 'video' ? deps.videoUrl : deps.apiUrl;
    if (!host)
      throw new PublicationError(`${deps.platform} has no video host configured.`, {
        retryable: false,
      });
    const fields = { ...params, access_token: token };
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
    };
    let url = `${host}${path}`;
    let body: Buffer | string | undefined;
    if (method === 'GET') url = `${url}?${new URLSearchParams(fields)}`;
    else if (opts?.file) {
      const encoded = await multipart(fields, opts.file);
      headers['content-type'] = encoded.contentType;
      body = encoded.body;
    } else {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(fields).toString();
      if (deps.paramsInQuery) url = `${url}?${inQuery(fields)}`;
    }
    // No message or log of ours carries a request's address or body.
    return platformRequest(deps.policy, deps.platform, url, {
      method,
      headers,
      body,
      timeoutMs: deps.timeoutMs,
    });
  };
  return async (method, path, params = {}, opts) => {
    const token = await tokens.current();
    let res = await send(method, path, params, opts, token);
    if (tokenRefused(res))
      res = await send(method, path, params, opts, await tokens.refused(token));
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
