// A signed-in Bluesky session (AT Protocol XRPC over plain HTTP, through the outbound guard).
// Signs in with the account's app password (com.atproto.server.createSession), refreshes an
// access token that expired or is about to (com.atproto.server.refreshSession), signs in
// again when the refresh token is gone too, and hands every new session to `save` so the next
// publication starts from it. Only a refused app password needs the operator: `reconnect`.
import { z } from 'zod';
import type { OutboundPolicy } from '../../outbound/guard.ts';
import { PublicationError } from '../connector.ts';
import {
  documented,
  fieldOf,
  PLATFORM_TIMEOUT_MS,
  type PlatformResponse,
  platformRequest,
  refusal,
} from '../http.ts';

export type BlueskySession = {
  did: string;
  handle: string;
  accessJwt: string;
  refreshJwt: string;
  /** The account's own PDS, from its DID document; where every repo call goes. */
  pds: string;
};

export type BlueskyCredentials = {
  /** Where to sign in: the PDS or its entryway (https://bsky.social). */
  service: string;
  identifier: string;
  app_password: string;
  session?: BlueskySession;
};

export const DEFAULT_SERVICE = 'https://bsky.social';

export function blueskyCredentials(c: Record<string, unknown>): BlueskyCredentials {
  if (typeof c.identifier !== 'string' || typeof c.app_password !== 'string')
    throw new PublicationError(
      'The Bluesky account lacks identifier or app_password; reconnect it.',
      { retryable: false, reconnect: true },
    );
  const service = typeof c.service === 'string' ? c.service : DEFAULT_SERVICE;
  return {
    service: service.replace(/\/+$/, ''),
    identifier: c.identifier,
    app_password: c.app_password,
    session: (c.session as BlueskySession | undefined) ?? undefined,
  };
}

export type XrpcInit = {
  method: 'GET' | 'POST';
  /** A list is sent as the parameter repeated. */
  query?: Record<string, string | string[]>;
  json?: unknown;
  bytes?: { data: Buffer; mime: string };
};

/**
 * A token the PDS no longer takes: 400 ExpiredToken or InvalidToken (atproto.com/specs/xrpc),
 * or any 401 on a call that carried one.
 */
const isTokenRefusal = (res: PlatformResponse) =>
  res.status === 401 ||
  (res.status === 400 &&
    (fieldOf(res, 'error') === 'ExpiredToken' || fieldOf(res, 'error') === 'InvalidToken'));

const reasonOf = (res: PlatformResponse) =>
  [fieldOf(res, 'error'), fieldOf(res, 'message')].filter(Boolean).join(': ') || 'no reason given';

/**
 * The answer of createSession and refreshSession (com.atproto.server lexicons). The DID
 * document is optional and loosely read: only its #atproto_pds service is used.
 */
const SessionAnswer = z.object({
  did: z.string().startsWith('did:'),
  handle: z.string().min(1),
  accessJwt: z.string().min(1),
  refreshJwt: z.string().min(1),
  didDoc: z
    .object({
      service: z
        .array(z.object({ id: z.string(), serviceEndpoint: z.string() }).partial())
        .optional(),
    })
    .optional()
    .catch(undefined),
});

/** Seconds since the epoch when a JWT expires, or undefined when it cannot be read. */
function expiresAt(jwt: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof payload.exp === 'number' ? payload.exp : undefined;
  } catch {
    return undefined;
  }
}

/** Tokens closer than this to their expiry are refreshed before use. */
const EXPIRY_MARGIN_S = 60;

export class BlueskyClient {
  readonly #policy: OutboundPolicy;
  readonly #timeoutMs: number;
  readonly #creds: BlueskyCredentials;
  readonly #save: (session: BlueskySession) => Promise<void>;
  #session: BlueskySession | undefined;

  constructor(
    policy: OutboundPolicy,
    creds: BlueskyCredentials,
    save: (session: BlueskySession) => Promise<void>,
    timeoutMs = PLATFORM_TIMEOUT_MS,
  ) {
    this.#policy = policy;
    this.#creds = creds;
    this.#save = save;
    this.#timeoutMs = timeoutMs;
    this.#session = creds.session;
  }

  #send(base: string, nsid: string, init: XrpcInit, token?: string) {
    const pairs = Object.entries(init.query ?? {}).flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [v]).map((x) => [k, x]),
    );
    const query = pairs.length ? `?${new URLSearchParams(pairs)}` : '';
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    let body: Buffer | string | undefined;
    if (init.bytes) {
      headers['content-type'] = init.bytes.mime;
      body = init.bytes.data;
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    return platformRequest(this.#policy, 'Bluesky', `${base}/xrpc/${nsid}${query}`, {
      method: init.method,
      headers,
      body,
      timeoutMs: this.#timeoutMs,
    });
  }

  async #adopt(nsid: string, res: PlatformResponse): Promise<BlueskySession> {
    const j = documented('Bluesky', nsid, res, SessionAnswer);
    const services = j.didDoc?.service ?? [];
    const pds = services.find((s) => s.id?.endsWith('#atproto_pds'))?.serviceEndpoint;
    const session: BlueskySession = {
      did: j.did,
      handle: j.handle,
      accessJwt: j.accessJwt,
      refreshJwt: j.refreshJwt,
      pds: (pds ?? this.#session?.pds ?? this.#creds.service).replace(/\/+$/, ''),
    };
    this.#session = session;
    await this.#save(session);
    return session;
  }

  /** Signs in with the app password. */
  async signIn(): Promise<BlueskySession> {
    const res = await this.#send(this.#creds.service, 'com.atproto.server.createSession', {
      method: 'POST',
      json: { identifier: this.#creds.identifier, password: this.#creds.app_password },
    });
    if (res.status === 200) return this.#adopt('com.atproto.server.createSession', res);
    const refused =
      res.status === 401 || /^Account(Takedown|Deactivated)$/.test(fieldOf(res, 'error') ?? '');
    throw refusal('Bluesky', res, `sign-in refused (${reasonOf(res)})`, { reconnect: refused });
  }

  /** A fresh access token: refreshed when possible, else a new sign-in. */
  async #renew(): Promise<BlueskySession> {
    const current = this.#session;
    if (!current) return this.signIn();
    const res = await this.#send(
      current.pds,
      'com.atproto.server.refreshSession',
      { method: 'POST' },
      current.refreshJwt,
    );
    if (res.status === 200) return this.#adopt('com.atproto.server.refreshSession', res);
    if (isTokenRefusal(res)) return this.signIn();
    throw refusal('Bluesky', res, reasonOf(res));
  }

  async #usable(): Promise<BlueskySession> {
    const s = this.#session;
    if (!s) return this.signIn();
    const exp = expiresAt(s.accessJwt);
    if (exp !== undefined && exp - Date.now() / 1000 < EXPIRY_MARGIN_S) return this.#renew();
    return s;
  }

  get session(): BlueskySession | undefined {
    return this.#session;
  }

  /**
   * One authenticated call to the account's PDS; an access token refused as expired is
   * renewed and the call sent once more. Answers 2xx responses, and the responses whose error
   * name is in `expected`; throws a PublicationError for the others.
   */
  async call(nsid: string, init: XrpcInit, expected: string[] = []): Promise<PlatformResponse> {
    let session = await this.#usable();
    let res = await this.#send(session.pds, nsid, init, session.accessJwt);
    if (isTokenRefusal(res)) {
      session = await this.#renew();
      res = await this.#send(session.pds, nsid, init, session.accessJwt);
    }
    if (res.status >= 200 && res.status < 300) return res;
    if (expected.includes(fieldOf(res, 'error') ?? '')) return res;
    throw refusal('Bluesky', res, reasonOf(res), { reconnect: isTokenRefusal(res) });
  }
}
