// The one way the service sends a request to an address a user supplied (webhooks now; URL
// ingest, generation sources and platform instances later). The name is resolved once, every
// resulting address is checked, and the connection goes to the checked address (the socket's
// `lookup` is pinned), so DNS rebinding between check and connect cannot slip through.
// Redirects are never followed here; time and response size are capped.
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { type Cidr, isAllowedAddress, parseAllowlist } from './addresses.ts';

/** Where refusals are recorded with what the caller is not told (a pino or Fastify logger). */
export type OutboundLog = { warn: (obj: object, msg: string) => void };

export type OutboundPolicy = { allowlist: Cidr[]; allowHttp: boolean; log?: OutboundLog };

export const outboundPolicy = (
  config: { outboundAllowlist: string[]; outboundAllowHttp: boolean },
  log?: OutboundLog,
): OutboundPolicy => ({
  allowlist: parseAllowlist(config.outboundAllowlist),
  allowHttp: config.outboundAllowHttp,
  ...(log ? { log } : {}),
});

/** A request the guard refused to send; the message says why. */
export class OutboundRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefused';
  }
}

/**
 * What the caller hears for a host the guard will not reach, the same whether the name has no
 * address or a private one: two answers would let anyone confirm the names inside the
 * operator's network (`postgres`, `redis` in the compose file). The log tells them apart.
 */
const notPublic = (host: string) =>
  `${host} does not resolve to a public address (the operator can allow a private one with OUTBOUND_ALLOWLIST)`;

/**
 * The host has no address: a DNS failure, which may pass, rather than a rule of the guard.
 * Callers that retry (platform connectors) retry this one; its message is a refusal's.
 */
export class HostNotResolved extends OutboundRefused {
  constructor(host: string) {
    super(notPublic(host));
    this.name = 'HostNotResolved';
  }
}

/** Checks the URL's form: a parsable http(s) URL, https unless the policy allows http. */
export function checkUrlForm(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused('not a valid URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp))
    throw new OutboundRefused(
      policy.allowHttp
        ? 'the URL must use http or https'
        : 'the URL must use https (the operator can allow http with OUTBOUND_ALLOW_HTTP=true)',
    );
  if (url.username || url.password) throw new OutboundRefused('the URL may not carry credentials');
  return url;
}

export type CheckedTarget = { url: URL; address: string; family: 4 | 6 };

/** Resolves the URL's host and checks every address; the first becomes the one to connect to. */
export async function resolveChecked(raw: string, policy: OutboundPolicy): Promise<CheckedTarget> {
  const url = checkUrlForm(raw, policy);
  // WHATWG URL has already turned decimal, octal and hex IPv4 forms into dotted quads.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const unresolved = (code?: string) => {
    policy.log?.warn({ host, code }, 'outbound request refused: the host does not resolve');
    return new HostNotResolved(host);
  };
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) as 4 | 6 }]
    : await dnsLookup(host, { all: true, verbatim: true }).catch((err: { code?: string }) => {
        throw unresolved(err.code);
      });
  if (!addresses.length) throw unresolved();
  const refused = addresses.find((a) => !isAllowedAddress(a.address, policy.allowlist));
  if (refused) {
    // What a name resolves to inside the operator's network is the operator's to know.
    policy.log?.warn(
      { host, address: refused.address },
      'outbound request refused: the host resolves to an address that is not public',
    );
    throw new OutboundRefused(notPublic(host));
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family as 4 | 6 };
}

export type OutboundResponse = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

export type CheckedRequest = {
  method: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** Covers the whole exchange, the response body included. */
  timeoutMs: number;
};

/**
 * A network error as the caller may see it: Node names the address it connected to
 * (`connect ECONNREFUSED 10.0.0.5:443`), which is the operator's to know, so the message names
 * the host the caller gave instead; `code` and the original (as `cause`) are kept.
 */
function withHostForAddress(err: Error & { code?: string }, target: CheckedTarget): Error {
  const host = target.url.hostname.replace(/^\[|\]$/g, '');
  if (host === target.address || !err.message.includes(target.address)) return err;
  return Object.assign(new Error(err.message.replaceAll(target.address, host), { cause: err }), {
    code: err.code,
  });
}

/** Opens one request to a checked target and resolves with the response as a stream. */
export function requestChecked(
  target: CheckedTarget,
  init: CheckedRequest,
): Promise<http.IncomingMessage> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      target.url,
      {
        method: init.method,
        headers: init.headers,
        lookup: pinned,
        agent: false,
        signal: AbortSignal.timeout(init.timeoutMs),
      },
      resolve,
    );
    req.on('error', (err) =>
      reject(
        err.name === 'AbortError'
          ? new Error(`timed out after ${init.timeoutMs} ms`)
          : withHostForAddress(err, target),
      ),
    );
    req.end(init.body);
  });
}

/**
 * Sends one request to a checked target. Resolves with the response (any status, redirects
 * included, never followed); rejects on network errors, timeouts and oversized responses.
 */
export async function sendChecked(
  target: CheckedTarget,
  init: CheckedRequest & { maxResponseBytes: number },
): Promise<OutboundResponse> {
  const res = await requestChecked(target, init);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > init.maxResponseBytes) {
      res.destroy();
      throw new OutboundRefused('the response is larger than allowed');
    }
    chunks.push(chunk as Buffer);
  }
  return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) };
}

/**
 * GETs a URL, following up to `maxRedirects` redirects, each target checked again. Resolves
 * with the final response as a stream (the caller caps what it reads).
 */
export async function getFollowing(
  raw: string,
  policy: OutboundPolicy,
  opts: { maxRedirects: number; timeoutMs: number; headers?: Record<string, string> },
): Promise<{ url: URL; response: http.IncomingMessage }> {
  let current = raw;
  for (let hop = 0; ; hop++) {
    const target = await resolveChecked(current, policy);
    const response = await requestChecked(target, {
      method: 'GET',
      headers: { 'user-agent': 'social-publishing-service/1', ...opts.headers },
      timeoutMs: opts.timeoutMs,
    });
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status < 300 || status >= 400 || !location) return { url: target.url, response };
    response.resume();
    if (hop >= opts.maxRedirects)
      throw new OutboundRefused(`more than ${opts.maxRedirects} redirects`);
    current = new URL(location, target.url).toString();
  }
}
