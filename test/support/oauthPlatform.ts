// A loopback stand-in for an OAuth 2 platform, written from RFC 6749 and RFC 7636 as the
// platforms document them: an authorize page (Authorize, or Cancel: error=access_denied), a
// token endpoint that trades each code once (checking the redirect URI, the client's Basic
// credentials and the PKCE S256 verifier), and an identity call. Beside it, a test-only OAuthApp
// for it, given to the app through its deps as the real ones are (AppDeps.oauthApps).
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { documented, platformRequest } from '../../core/connectors/http.ts';
import type { OAuthApp } from '../../core/connectors/oauthApp.ts';
import type { OAuthPlatform } from '../../core/platformApps.ts';

export const STAND_IN_CLIENT = { id: 'stand-in-client', secret: 'stand-in-secret-0123456789' };

type Grant = { redirectUri: string; challenge: string | undefined; used: boolean };

export type OAuthStandIn = {
  url: string;
  /** The env that points the platform at the stand-in, with the operator's app set. */
  env: (prefix: string) => Record<string, string>;
  /** Token requests received (their form fields), in order. */
  tokenRequests: Record<string, string>[];
  /** Access tokens issued, by the handle their identity call answers. */
  issued: Map<string, string>;
  /** Makes the token endpoint refuse every code (as a platform refusing a stale one would). */
  refuseCodes(on: boolean): void;
  close(): Promise<void>;
};

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => resolve(body));
  });

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startOAuthStandIn(handle = 'standin_user'): Promise<OAuthStandIn> {
  const grants = new Map<string, Grant>();
  const tokenRequests: Record<string, string>[] = [];
  const issued = new Map<string, string>();
  let refuse = false;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://loopback');
    if (req.method === 'GET' && url.pathname === '/i/oauth2/authorize') {
      const q = url.searchParams;
      const redirect = q.get('redirect_uri') ?? '';
      if (q.get('client_id') !== STAND_IN_CLIENT.id || q.get('response_type') !== 'code')
        return json(res, 400, { error: 'invalid_request' });
      const code = randomBytes(16).toString('hex');
      grants.set(code, {
        redirectUri: redirect,
        challenge:
          q.get('code_challenge_method') === 'S256'
            ? (q.get('code_challenge') ?? undefined)
            : undefined,
        used: false,
      });
      const back = (params: Record<string, string>) => {
        const to = new URL(redirect);
        for (const [k, v] of Object.entries({ ...params, state: q.get('state') ?? '' }))
          to.searchParams.set(k, v);
        return escapeHtml(to.toString());
      };
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html lang="en"><head><title>Authorize app</title></head><body><main>
<h1>Authorize the publishing service to use your account?</h1>
<p>Signed in as @${escapeHtml(handle)}. Scopes: ${escapeHtml(q.get('scope') ?? '')}</p>
<a id="authorize" href="${back({ code })}">Authorize app</a>
<a id="cancel" href="${back({ error: 'access_denied' })}">Cancel</a>
</main></body></html>`,
      );
      return;
    }
    if (req.method === 'POST' && url.pathname === '/2/oauth2/token') {
      const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
      tokenRequests.push(form);
      const basic = Buffer.from(`${STAND_IN_CLIENT.id}:${STAND_IN_CLIENT.secret}`).toString(
        'base64',
      );
      if (req.headers.authorization !== `Basic ${basic}`)
        return json(res, 401, { error: 'unauthorized_client' });
      const grant = grants.get(form.code ?? '');
      const verified =
        grant?.challenge === undefined ||
        createHash('sha256')
          .update(form.code_verifier ?? '')
          .digest('base64url') === grant.challenge;
      if (
        refuse ||
        form.grant_type !== 'authorization_code' ||
        !grant ||
        grant.used ||
        grant.redirectUri !== form.redirect_uri ||
        !verified
      )
        return json(res, 400, {
          error: 'invalid_request',
          error_description: 'Value passed for the authorization code was invalid.',
        });
      grant.used = true;
      const access = `access-${randomBytes(12).toString('hex')}`;
      issued.set(handle, access);
      return json(res, 200, {
        token_type: 'bearer',
        expires_in: 7200,
        access_token: access,
        refresh_token: `refresh-${randomBytes(12).toString('hex')}`,
        scope: 'tweet.read tweet.write users.read offline.access',
      });
    }
    if (req.method === 'GET' && url.pathname === '/2/users/me') {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (![...issued.values()].includes(token))
        return json(res, 401, { title: 'Unauthorized', status: 401, detail: 'Unauthorized' });
      return json(res, 200, { data: { id: '2244994945', name: 'Stand-in', username: handle } });
    }
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: (prefix) => ({
      [`${prefix}_CLIENT_ID`]: STAND_IN_CLIENT.id,
      [`${prefix}_CLIENT_SECRET`]: STAND_IN_CLIENT.secret,
      [`${prefix}_AUTHORIZE_URL`]: `${url}/i/oauth2/authorize`,
      [`${prefix}_API_URL`]: url,
    }),
    tokenRequests,
    issued,
    refuseCodes: (on) => {
      refuse = on;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const TokenAnswer = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.number().int().positive().optional(),
  scope: z.string().optional(),
});

/**
 * A test-only OAuthApp for the stand-in, shaped as an X-like platform's: PKCE S256 unless
 * `pkce` is false (as LinkedIn's and Pinterest's web flows take none).
 */
export function standInOAuthApp(platform: OAuthPlatform = 'x', { pkce = true } = {}): OAuthApp {
  return {
    platform,
    scopes: ['tweet.read', 'tweet.write', 'users.read', 'offline.access'],
    pkce,
    authorizeUrl(app, flow) {
      const u = new URL(app.authorizeUrl);
      u.search = new URLSearchParams({
        response_type: 'code',
        client_id: app.clientId ?? '',
        redirect_uri: flow.redirectUri,
        scope: this.scopes.join(' '),
        state: flow.state,
        ...(flow.codeChallenge
          ? { code_challenge: flow.codeChallenge, code_challenge_method: 'S256' }
          : {}),
      }).toString();
      return u.toString();
    },
    async exchangeCode(ctx, flow) {
      const basic = Buffer.from(`${ctx.app.clientId}:${ctx.app.clientSecret}`).toString('base64');
      const res = await platformRequest(
        ctx.policy,
        platform,
        `${ctx.app.oauthUrl}/2/oauth2/token`,
        {
          method: 'POST',
          headers: {
            authorization: `Basic ${basic}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: flow.code,
            redirect_uri: flow.redirectUri,
            ...(flow.codeVerifier ? { code_verifier: flow.codeVerifier } : {}),
          }).toString(),
          timeoutMs: 5000,
        },
      );
      if (res.status !== 200) throw new Error(`the token endpoint answered ${res.status}`);
      const t = documented(platform, 'POST /2/oauth2/token', res, TokenAnswer);
      return {
        access_token: t.access_token,
        ...(t.refresh_token ? { refresh_token: t.refresh_token } : {}),
        ...(t.expires_in
          ? { expires_at: new Date(Date.now() + t.expires_in * 1000).toISOString() }
          : {}),
        ...(t.scope ? { scope: t.scope } : {}),
      };
    },
    async refresh() {
      throw new Error('the stand-in app does not refresh');
    },
    async identify(ctx, credentials) {
      const res = await platformRequest(ctx.policy, platform, `${ctx.app.apiUrl}/2/users/me`, {
        method: 'GET',
        headers: { authorization: `Bearer ${String(credentials.access_token)}` },
        timeoutMs: 5000,
      });
      if (res.status !== 200) throw new Error(`the identity call answered ${res.status}`);
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
