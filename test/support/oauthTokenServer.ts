// A stand-in on loopback for an OAuth 2 platform that rotates refresh tokens, written from X's
// documentation (PLATFORMS.md, X): `POST /2/oauth2/token` (form, client credentials as Basic
// auth) answers `{token_type, expires_in, access_token, scope, refresh_token}`; a refresh token
// works once, and one presented again revokes its whole family (what X is reported to do); a
// bad one is a 400 `invalid_request`. `GET /2/users/me` names the account, `POST /2/tweets`
// posts (201 `{data: {id, text}}`, 401 for a token that is expired or revoked, 429 with
// `x-rate-limit-reset` when told to). `standInOAuthApp` and `standInConnector` are the test's
// OAuthApp and Connector for it, written as a platform's would be.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Connector } from '../../core/connectors/connector.ts';
import { documented, platformRequest, refusal } from '../../core/connectors/http.ts';
import type { OAuthApp, OAuthTokens } from '../../core/connectors/oauthApp.ts';
import type { OAuthPlatform } from '../../core/platformApps.ts';

export const STAND_IN_CLIENT = { id: 'stand-in-client', secret: 'stand-in-secret' };

type Family = { revoked: boolean; user: { id: string; username: string } };
type Access = { family: Family; expiresAt: number };

export type OAuthStandIn = {
  url: string;
  /** Refresh tokens presented to the token endpoint, in order (spent ones included). */
  refreshes: string[];
  /** Posts made, with the token each was made with. */
  posts: { id: string; text: string; token: string }[];
  /** Starts a token family for a user: its access token expires `accessTtlMs` from now. */
  issue(opts?: { accessTtlMs?: number; username?: string }): {
    access_token: string;
    refresh_token: string;
  };
  /** Whether a refresh token's family was revoked (a spent token came back). */
  revoked(refreshToken: string): boolean;
  /** How long the token endpoint takes to answer a refresh (to make refreshes overlap). */
  refreshDelayMs: number;
  /** Refusals quote the token they refuse (a careless platform's): it must not be kept. */
  echoTokens: boolean;
  /** Makes the next posts answer 429 with this `x-rate-limit-reset` (Unix seconds). */
  rateLimitNext(resetUnixSeconds: number, times?: number): void;
  close(): Promise<void>;
};

const INVALID_TOKEN = {
  error: 'invalid_request',
  error_description: 'Value passed for the token was invalid.',
};

export async function startOAuthStandIn(): Promise<OAuthStandIn> {
  let seq = 0;
  const next = (prefix: string) => `${prefix}-${++seq}-${Math.random().toString(36).slice(2)}`;
  const access = new Map<string, Access>();
  const refreshTokens = new Map<string, { family: Family; spent: boolean }>();
  const refreshes: string[] = [];
  const posts: OAuthStandIn['posts'] = [];
  let rateLimits: number[] = [];

  const issueIn = (family: Family, accessTtlMs = 7_200_000) => {
    const access_token = next('at');
    const refresh_token = next('rt');
    access.set(access_token, { family, expiresAt: Date.now() + accessTtlMs });
    refreshTokens.set(refresh_token, { family, spent: false });
    return { access_token, refresh_token };
  };

  const json = (res: ServerResponse, status: number, body: unknown, headers = {}) =>
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(body));
  const unauthorized = (res: ServerResponse, token = '') =>
    json(res, 401, {
      title: 'Unauthorized',
      type: 'about:blank',
      status: 401,
      detail: stand.echoTokens ? `Unauthorized: ${token}` : 'Unauthorized',
    });
  const bearer = (req: IncomingMessage) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const found = token ? access.get(token) : undefined;
    return found && !found.family.revoked && found.expiresAt > Date.now()
      ? { token: token!, ...found }
      : undefined;
  };

  const stand = {} as OAuthStandIn;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://loopback');
      if (req.method === 'POST' && url.pathname === '/2/oauth2/token') {
        const basic = `Basic ${Buffer.from(`${STAND_IN_CLIENT.id}:${STAND_IN_CLIENT.secret}`).toString('base64')}`;
        if (req.headers.authorization !== basic)
          return json(res, 401, {
            error: 'unauthorized_client',
            error_description: 'Missing valid authorization header',
          });
        const form = new URLSearchParams(raw);
        if (form.get('grant_type') !== 'refresh_token') return json(res, 400, INVALID_TOKEN);
        const presented = form.get('refresh_token') ?? '';
        refreshes.push(presented);
        await new Promise((r) => setTimeout(r, stand.refreshDelayMs));
        const invalid = stand.echoTokens
          ? { ...INVALID_TOKEN, error_description: `Invalid refresh token: ${presented}` }
          : INVALID_TOKEN;
        const held = refreshTokens.get(presented);
        if (!held || held.family.revoked) return json(res, 400, invalid);
        if (held.spent) {
          // Reuse of a spent token: the family is presumed stolen.
          held.family.revoked = true;
          return json(res, 400, invalid);
        }
        held.spent = true;
        const fresh = issueIn(held.family);
        return json(res, 200, {
          token_type: 'bearer',
          expires_in: 7200,
          scope: 'tweet.write tweet.read users.read offline.access',
          ...fresh,
        });
      }
      if (req.method === 'GET' && url.pathname === '/2/users/me') {
        const who = bearer(req);
        if (!who) return unauthorized(res, req.headers.authorization?.slice(7));
        const { id, username } = who.family.user;
        return json(res, 200, { data: { id, name: username, username } });
      }
      if (req.method === 'POST' && url.pathname === '/2/tweets') {
        const who = bearer(req);
        if (!who) return unauthorized(res);
        const reset = rateLimits.shift();
        if (reset !== undefined)
          return json(
            res,
            429,
            {
              title: 'Too Many Requests',
              detail: 'Too Many Requests',
              type: 'about:blank',
              status: 429,
            },
            {
              'x-rate-limit-limit': '100',
              'x-rate-limit-remaining': '0',
              'x-rate-limit-reset': String(reset),
            },
          );
        const text = String(JSON.parse(raw).text);
        const id = String(1_445_880_548_472_328_192n + BigInt(posts.length));
        posts.push({ id, text, token: who.token });
        return json(res, 201, { data: { id, text } });
      }
      json(res, 404, { title: 'Not Found', status: 404 });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(stand, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refreshes,
    posts,
    refreshDelayMs: 0,
    echoTokens: false,
    issue: ({
      accessTtlMs,
      username = 'brand',
    }: {
      accessTtlMs?: number;
      username?: string;
    } = {}) =>
      issueIn(
        { revoked: false, user: { id: String(2_244_994_945 + ++seq), username } },
        accessTtlMs,
      ),
    revoked: (refreshToken: string) => refreshTokens.get(refreshToken)?.family.revoked ?? false,
    rateLimitNext: (reset: number, times = 1) => {
      rateLimits = Array.from({ length: times }, () => reset);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}

const TokenAnswer = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.number().int().positive().optional(),
  scope: z.string().optional(),
});

/** The OAuthApp of the stand-in, registered as `platform` (X's shape of calls). */
export function standInOAuthApp(platform: OAuthPlatform = 'x'): OAuthApp {
  return {
    platform,
    scopes: ['tweet.write', 'tweet.read', 'users.read', 'offline.access'],
    pkce: true,
    authorizeUrl: (app, flow) =>
      `${app.authorizeUrl}?${new URLSearchParams({ response_type: 'code', state: flow.state })}`,
    exchangeCode: async () => {
      throw new Error('the stand-in app is connected with tokens only');
    },
    async refresh(ctx, tokens): Promise<OAuthTokens> {
      const res = await platformRequest(
        ctx.policy,
        platform,
        `${ctx.app.oauthUrl}/2/oauth2/token`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${STAND_IN_CLIENT.id}:${STAND_IN_CLIENT.secret}`).toString('base64')}`,
          },
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: tokens.refresh_token ?? '',
          }).toString(),
          timeoutMs: 10_000,
        },
      );
      if (res.status !== 200) {
        const reason = String(
          (res.json as { error_description?: unknown })?.error_description ?? '',
        );
        throw refusal(platform, res, reason, {
          reconnect: res.status === 400 || res.status === 401,
        });
      }
      const t = documented(platform, 'POST /2/oauth2/token', res, TokenAnswer);
      return {
        access_token: t.access_token,
        refresh_token: t.refresh_token,
        expires_at: t.expires_in
          ? new Date(Date.now() + t.expires_in * 1000).toISOString()
          : undefined,
        scope: t.scope,
      };
    },
    async identify(ctx, credentials) {
      const res = await platformRequest(ctx.policy, platform, `${ctx.app.apiUrl}/2/users/me`, {
        method: 'GET',
        headers: { authorization: `Bearer ${String(credentials.access_token)}` },
        timeoutMs: 10_000,
      });
      if (res.status !== 200)
        throw refusal(platform, res, String((res.json as { detail?: unknown })?.detail ?? ''));
      const me = documented(
        platform,
        'GET /2/users/me',
        res,
        z.object({ data: z.object({ id: z.string().min(1), username: z.string().min(1) }) }),
      );
      return { handle: `@${me.data.username}`, fields: { user_id: me.data.id } };
    },
  };
}

/**
 * The stand-in's connector: posts with `tokens.current()`, and after a 401 once more with
 * `tokens.refused(token)`, as a real OAuth platform's connector does.
 */
export function standInConnector(
  url: string,
  policy: Parameters<typeof platformRequest>[0],
  platform: OAuthPlatform = 'x',
): Connector {
  return {
    async publish(req) {
      const tokens = req.account.tokens;
      if (!tokens) throw new Error('an OAuth connection without tokens');
      const post = (token: string) =>
        platformRequest(policy, platform, `${url}/2/tweets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text: req.post.body }),
          timeoutMs: 10_000,
        });
      const token = await tokens.current();
      let res = await post(token);
      if (res.status === 401) res = await post(await tokens.refused(token));
      if (res.status !== 201)
        throw refusal(platform, res, String((res.json as { detail?: unknown })?.detail ?? ''));
      const { data } = documented(
        platform,
        'POST /2/tweets',
        res,
        z.object({ data: z.object({ id: z.string().min(1) }) }),
      );
      return {
        externalPostId: data.id,
        permalinkUrl: `https://x.com/${req.account.handle.slice(1)}/status/${data.id}`,
      };
    },
  };
}
