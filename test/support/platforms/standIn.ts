// The shared frame of the OAuth platforms' stand-ins on loopback: each request is recorded
// (method, path, query, headers, form fields) and answered by the platform's routes, unless a
// test has told the next answer to a route (`answerNext`: a status, a raw body, headers),
// which is how hostile answers (not JSON, a field missing, a huge body) are served.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthContext } from '../../../core/connectors/oauthApp.ts';
import { outboundPolicy } from '../../../core/outbound/guard.ts';
import { type OAuthPlatform, platformApps } from '../../../core/platformApps.ts';

/** Loopback and http allowed, as a platform on loopback needs. */
export const LOOPBACK_POLICY = outboundPolicy({
  outboundAllowlist: ['127.0.0.0/8'],
  outboundAllowHttp: true,
});

export type Received = {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The body's form fields (application/x-www-form-urlencoded), or {} . */
  form: Record<string, string>;
  /** The body as JSON, when it is. */
  json: unknown;
  /** The body's bytes (a multipart upload's). */
  raw: Buffer;
};

export type Answer = { status: number; body: unknown; headers?: Record<string, string> };
/** A raw answer: `body` is sent as it is (a string or bytes), not as JSON. */
export type RawAnswer = { status: number; raw: string | Buffer; headers?: Record<string, string> };

/** A platform's routes; one that does something first (fetches media) answers a promise. */
export type Route = (
  req: Received,
) => Answer | RawAnswer | undefined | Promise<Answer | RawAnswer | undefined>;

export type StandIn = {
  url: string;
  received: Received[];
  /** The next request to `line` ("GET /v1.0/me") is answered with this instead. */
  answerNext(line: string, answer: Answer | RawAnswer): void;
  close(): Promise<void>;
};

export const json = (status: number, body: unknown, headers?: Record<string, string>): Answer => ({
  status,
  body,
  headers,
});

export async function startStandIn(route: Route): Promise<StandIn> {
  const received: Received[] = [];
  const next = new Map<string, Answer | RawAnswer>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://loopback');
      const raw = Buffer.concat(chunks);
      const body = raw.toString('utf8');
      const isForm = String(req.headers['content-type']).startsWith(
        'application/x-www-form-urlencoded',
      );
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {}
      const r: Received = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        form: isForm ? Object.fromEntries(new URLSearchParams(body)) : {},
        json: parsed,
        raw,
      };
      received.push(r);
      const line = `${r.method} ${r.path}`;
      const told = next.get(line);
      if (told) next.delete(line);
      const answer = told ?? (await route(r)) ?? json(404, { error: { message: 'Unknown path' } });
      const headers = { 'content-type': 'application/json', ...answer.headers };
      res.writeHead(answer.status, headers);
      res.end('raw' in answer ? answer.raw : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answerNext: (line, answer) => next.set(line, answer),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A token as platforms make them: random, opaque. */
export const mint = (prefix: string) =>
  `${prefix}${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

/**
 * A stand-in's grants: one-use codes and the valid access and refresh tokens, each mapped to
 * its user. `pair` mints both (as a code exchange, or a refresh that rotates), `newAccess` an
 * access token alone (a refresh that keeps the refresh token), `revoke` ends every token of a
 * user (the user removed the app).
 */
export type TokenBook = {
  codes: Map<string, string>;
  access: Map<string, string>;
  refresh: Map<string, string>;
  issueCode(user?: string): string;
  newAccess(user: string): string;
  pair(user?: string): { access_token: string; refresh_token: string };
  revoke(user?: string): void;
};

/** A TokenBook minting codes and tokens with the platform's prefixes. */
export function tokenBook(prefix: { code: string; access: string; refresh: string }): TokenBook {
  const codes = new Map<string, string>();
  const access = new Map<string, string>();
  const refresh = new Map<string, string>();
  const newAccess = (user: string) => {
    const a = mint(prefix.access);
    access.set(a, user);
    return a;
  };
  return {
    codes,
    access,
    refresh,
    issueCode(user = 'brand') {
      const code = mint(prefix.code);
      codes.set(code, user);
      return code;
    },
    newAccess,
    pair(user = 'brand') {
      const r = mint(prefix.refresh);
      refresh.set(r, user);
      return { access_token: newAccess(user), refresh_token: r };
    },
    revoke(user = 'brand') {
      for (const m of [access, refresh]) for (const [t, u] of m) if (u === user) m.delete(t);
    },
  };
}

const PREFIX: Record<OAuthPlatform, string> = {
  x: 'X',
  linkedin: 'LINKEDIN',
  threads: 'THREADS',
  instagram: 'INSTAGRAM',
  facebook: 'FACEBOOK',
  tiktok: 'TIKTOK',
  youtube: 'YOUTUBE',
  pinterest: 'PINTEREST',
};
const CLIENT_PREFIX: Partial<Record<OAuthPlatform, string>> = { youtube: 'GOOGLE' };

/**
 * The OAuthContext of `platform` with every address of it (API, OAuth host, video host) at
 * the stand-in's `url`, and the operator's app `client` (none: the variables unset).
 */
export function oauthContext(
  platform: OAuthPlatform,
  url: string,
  client?: { id: string; secret: string },
): OAuthContext {
  const p = PREFIX[platform];
  const c = CLIENT_PREFIX[platform] ?? p;
  const env: Record<string, string> = {
    [`${p}_API_URL`]: url,
    [`${p === 'YOUTUBE' ? 'GOOGLE' : p}_OAUTH_URL`]: url,
    [`${p}_VIDEO_URL`]: url,
    [`${c}_AUTHORIZE_URL`]: `${url}/authorize`,
    ...(client ? { [`${c}_CLIENT_ID`]: client.id, [`${c}_CLIENT_SECRET`]: client.secret } : {}),
  };
  return { app: platformApps(env)[platform], policy: LOOPBACK_POLICY };
}
