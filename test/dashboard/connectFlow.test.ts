// The dashboard's OAuth connect flow against a loopback stand-in of a platform (its authorize
// page, token endpoint and identity call): starting a flow needs the operator's app, the
// session, our Origin and the CSRF token; the callback finishes only a live flow of the same
// session, once; the tokens are sealed at rest; every failure goes back to the Accounts page
// with a reason of ours.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsKey, openCredentials } from '../../core/connections/service.ts';
import { createLogger } from '../../core/logger.ts';
import { loadLocalSecrets } from '../../core/secrets.ts';
import { logSink } from '../support/logs.ts';
import { type OAuthStandIn, standInOAuthApp, startOAuthStandIn } from '../support/oauthPlatform.ts';
import {
  call,
  login,
  makeKey,
  signedInDashboard,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { LOOPBACK_OUTBOUND } from '../support/service.ts';

let standIn: OAuthStandIn;
let server: TestServer;
const logged: string[] = [];

beforeAll(async () => {
  standIn = await startOAuthStandIn('standin_user');
  server = await startServer({
    // X has the operator's app and a stand-in; LinkedIn has neither; Threads has the app and
    // its shipped OAuthApp.
    env: {
      ...LOOPBACK_OUTBOUND,
      ...standIn.env('X'),
      ...standIn.env('PINTEREST'),
      THREADS_CLIENT_ID: 'threads-app',
      THREADS_CLIENT_SECRET: 'threads-secret',
    },
    oauthApps: {
      x: standInOAuthApp('x'),
      pinterest: standInOAuthApp('pinterest', { pkce: false }),
    },
    logger: createLogger(
      'info',
      logSink((line) => logged.push(line)),
    ) as never,
  });
});
afterAll(async () => {
  await server?.close();
  await standIn?.close();
});

type Dashboard = Awaited<ReturnType<typeof signedInDashboard>>;

/** Starts a flow for X and follows the stand-in's authorize page to what it sends back. */
async function authorizeOnPlatform(d: Dashboard, choice: 'authorize' | 'cancel' = 'authorize') {
  const started = await d.send('POST', '/connections/x/authorize', {});
  expect(started.status).toBe(200);
  const page = await fetch(started.body.authorize_url).then((r) => r.text());
  const href = page.match(new RegExp(`id="${choice}" href="([^"]+)"`))![1]!.replace(/&#38;/g, '&');
  const back = new URL(href);
  return { started, back, query: back.search };
}

const callback = (query: string, cookie?: string) =>
  fetch(`${server.baseUrl}/connect/x/callback${query}`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });

const connectionOf = async (brandId: string, platform = 'x') =>
  (
    await server.pool.query(
      `select id::text, handle, status, last_error, credentials from connected_accounts
       where brand_id = $1 and platform = $2`,
      [brandId, platform],
    )
  ).rows[0];

describe('starting a flow (POST /app/api/connections/{platform}/authorize)', () => {
  it("without the operator's client id and secret: 409 naming the variables to set", async () => {
    const d = await signedInDashboard(server);
    const res = await d.send('POST', '/connections/linkedin/authorize', {});
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('platform_not_configured');
    expect(res.body.variables).toEqual(['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET']);
    expect(res.body.detail).toContain('LINKEDIN_CLIENT_ID');
    expect(res.body.detail).toContain('LINKEDIN_CLIENT_SECRET');
    const youtube = await d.send('POST', '/connections/youtube/authorize', {});
    expect(youtube.body.variables).toEqual(['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET']);
  });

  it('a non-OAuth platform: 422', async () => {
    const d = await signedInDashboard(server);
    expect((await d.send('POST', '/connections/bluesky/authorize', {})).status).toBe(422);
  });

  it('answers the authorize page with state, PKCE S256 and our callback; keeps only the state hash and a sealed verifier, for 10 minutes', async () => {
    const d = await signedInDashboard(server);
    const res = await d.send('POST', '/connections/x/authorize', { brand_id: d.brand.id });
    expect(res.status).toBe(200);
    const url = new URL(res.body.authorize_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${standIn.url}/i/oauth2/authorize`);
    const q = url.searchParams;
    expect(q.get('client_id')).toBe('stand-in-client');
    expect(q.get('redirect_uri')).toBe(`${server.config.publicBaseUrl}/connect/x/callback`);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    const state = q.get('state')!;
    expect(state).toMatch(/^[\w-]{43}$/);

    const { rows } = await server.pool.query(
      `select state_hash, session_id::text, account_id::text, brand_id::text, platform,
              code_verifier, expires_at - created_at as ttl, consumed_at
       from connect_flows where account_id = $1`,
      [d.acct.accountId],
    );
    expect(rows).toHaveLength(1);
    const flow = rows[0];
    expect(flow.state_hash).toEqual(createHash('sha256').update(state).digest());
    expect(flow.brand_id).toBe(d.brand.id);
    expect(flow.platform).toBe('x');
    expect(flow.consumed_at).toBeNull();
    expect(flow.ttl).toMatchObject({ minutes: 10 });
    const sessionRow = await server.pool.query(
      'select id::text from sessions where account_id = $1',
      [d.acct.accountId],
    );
    expect(flow.session_id).toBe(sessionRow.rows[0].id);
    // The verifier is sealed: its challenge's preimage is not in the row's bytes.
    const key = credentialsKey(loadLocalSecrets(server.dataDir).credentialsKey);
    const verifier = String(openCredentials(key, flow.code_verifier).verifier);
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(q.get('code_challenge'));
    expect(flow.code_verifier.includes(Buffer.from(verifier))).toBe(false);
  });

  it('needs the session, our Origin and the CSRF token; a bearer key is refused', async () => {
    const d = await signedInDashboard(server);
    const path = '/app/api/connections/x/authorize';
    const without = async (headers: Record<string, string>) =>
      (await call(server, 'POST', path, { headers, body: {} })).status;
    expect(await without({ cookie: d.cookie, origin: d.headers.origin })).toBe(403);
    expect(
      await without({ cookie: d.cookie, origin: 'https://evil.example', 'x-csrf-token': d.csrf }),
    ).toBe(403);
    expect(await without({ cookie: d.cookie, 'x-csrf-token': d.csrf })).toBe(403);
    expect(await without({ origin: d.headers.origin, 'x-csrf-token': d.csrf })).toBe(401);
    const key = await makeKey(server.pool, d.acct.accountId, ['read', 'publish']);
    expect((await call(server, 'POST', path, { key, body: {} })).status).toBe(401);
    const { rows } = await server.pool.query(
      'select count(*)::int as n from connect_flows where account_id = $1',
      [d.acct.accountId],
    );
    expect(rows[0].n).toBe(0);
  });

  it("another account's brand is not found", async () => {
    const d = await signedInDashboard(server);
    const other = await signedInDashboard(server);
    const res = await d.send('POST', '/connections/x/authorize', { brand_id: other.brand.id });
    expect(res.status).toBe(404);
  });
});

describe('the callback (GET /connect/{platform}/callback)', () => {
  it('connects the brand with sealed tokens and goes back to the Accounts page', async () => {
    const d = await signedInDashboard(server);
    const { query } = await authorizeOnPlatform(d);
    const res = await callback(query, d.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings/accounts?connected=x');

    const row = await connectionOf(d.brand.id);
    expect(row).toMatchObject({ handle: '@standin_user', status: 'active', last_error: null });
    const access = standIn.issued.get('standin_user')!;
    expect(row.credentials.includes(Buffer.from(access))).toBe(false);
    const key = credentialsKey(loadLocalSecrets(server.dataDir).credentialsKey);
    const opened = openCredentials(key, row.credentials);
    expect(opened).toMatchObject({ access_token: access, user_id: '2244994945' });
    expect(opened.refresh_token).toMatch(/^refresh-/);
    // The token request carried the verifier of the challenge and our callback.
    const sent = standIn.tokenRequests.at(-1)!;
    expect(sent.redirect_uri).toBe(`${server.config.publicBaseUrl}/connect/x/callback`);
    expect(sent.code_verifier).toMatch(/^[\w-]{43}$/);
    // Nothing of the tokens, the code or the state is in the logs.
    const code = new URL(`http://x/${query}`).searchParams.get('code')!;
    const state = new URL(`http://x/${query}`).searchParams.get('state')!;
    const log = logged.join('\n');
    expect(log).toContain('/connect/x/callback');
    for (const secret of [access, String(opened.refresh_token), code, state, sent.code_verifier!])
      expect(log).not.toContain(secret);

    const platforms = await d.send('GET', '/platforms');
    expect(platforms.body.find((p: any) => p.platform === 'x')).toMatchObject({
      state: 'connected',
      handle: '@standin_user',
      connect: 'oauth',
    });
  });

  it('a post for X warns until X is connected, and not a moment after', async () => {
    const d = await signedInDashboard(server);
    const key = await makeKey(server.pool, d.acct.accountId, ['read', 'publish']);
    const post = () =>
      call(server, 'POST', '/v1/posts', { key, body: { platform: 'x', body: 'Hi' } });
    const before = await post();
    expect(before.body.warnings[0]).toMatch(/will fail unless X is connected/);
    await callback((await authorizeOnPlatform(d)).query, d.cookie);
    const after = await post();
    expect(after.status).toBe(201);
    expect(after.body).not.toHaveProperty('warnings');
  });

  it('a platform without PKCE: no challenge, no verifier kept or sent', async () => {
    const d = await signedInDashboard(server);
    const started = await d.send('POST', '/connections/pinterest/authorize', {});
    const url = new URL(started.body.authorize_url);
    expect(url.searchParams.has('code_challenge')).toBe(false);
    const { rows } = await server.pool.query(
      'select code_verifier from connect_flows where account_id = $1',
      [d.acct.accountId],
    );
    expect(rows).toEqual([{ code_verifier: null }]);
    const page = await fetch(url).then((r) => r.text());
    const href = page.match(/id="authorize" href="([^"]+)"/)![1]!.replace(/&#38;/g, '&');
    const res = await fetch(`${server.baseUrl}/connect/pinterest/callback${new URL(href).search}`, {
      redirect: 'manual',
      headers: { cookie: d.cookie },
    });
    expect(res.headers.get('location')).toBe('/settings/accounts?connected=pinterest');
    expect(standIn.tokenRequests.at(-1)).not.toHaveProperty('code_verifier');
    // A state is for its platform only: X's callback does not finish Pinterest's flow.
    const again = await d.send('POST', '/connections/pinterest/authorize', {});
    const state = new URL(again.body.authorize_url).searchParams.get('state')!;
    const crossed = await callback(`?code=c&state=${state}`, d.cookie);
    expect(crossed.headers.get('location')).toContain('connect_error=invalid_state');
  });

  it('a replayed callback fails and trades no second code', async () => {
    const d = await signedInDashboard(server);
    const { query } = await authorizeOnPlatform(d);
    expect((await callback(query, d.cookie)).headers.get('location')).toContain('connected=x');
    const exchanges = standIn.tokenRequests.length;
    const again = await callback(query, d.cookie);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(
      '/settings/accounts?connect_error=invalid_state&platform=x',
    );
    expect(standIn.tokenRequests.length).toBe(exchanges);
  });

  it('a malformed code or state (oversized, repeated) goes back to the Accounts page, its flow kept', async () => {
    const d = await signedInDashboard(server);
    const { back } = await authorizeOnPlatform(d);
    const state = back.searchParams.get('state')!;
    for (const query of [
      `?code=${'c'.repeat(5000)}&state=${state}`,
      `?code=c&state=${'s'.repeat(600)}`,
      `?code=a&code=b&state=${state}`,
    ]) {
      const res = await callback(query, d.cookie);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(
        '/settings/accounts?connect_error=invalid_state&platform=x',
      );
    }
    // The flow was not spent by them: the real answer still connects.
    const own = await callback(back.search, d.cookie);
    expect(own.headers.get('location')).toBe('/settings/accounts?connected=x');
  });

  it("counts each callback against the account's request budget", async () => {
    const d = await signedInDashboard(server);
    const first = await callback('?code=c&state=forged', d.cookie);
    const second = await callback('?code=c&state=forged', d.cookie);
    const left = (r: Response) => Number(r.headers.get('ratelimit-remaining'));
    expect(first.headers.get('ratelimit-remaining')).not.toBeNull();
    expect(left(second)).toBe(left(first) - 1);
  });

  it("another session's callback fails and leaves the flow to its own session", async () => {
    const d = await signedInDashboard(server);
    const { query } = await authorizeOnPlatform(d);
    // The same person signed in elsewhere, and another account: neither finishes this flow.
    const sameAccountElsewhere = await login(server, d.acct);
    const stranger = await signedInDashboard(server);
    for (const cookie of [sameAccountElsewhere, stranger.cookie]) {
      const res = await callback(query, cookie);
      expect(res.headers.get('location')).toContain('connect_error=invalid_state');
    }
    expect(await connectionOf(stranger.brand.id)).toBeUndefined();
    expect(await connectionOf(d.brand.id)).toBeUndefined();
    const own = await callback(query, d.cookie);
    expect(own.headers.get('location')).toBe('/settings/accounts?connected=x');
  });

  it('without a session the browser is sent back to sign in, nothing connected', async () => {
    const d = await signedInDashboard(server);
    const { query } = await authorizeOnPlatform(d);
    const res = await callback(query);
    expect(res.headers.get('location')).toContain('connect_error=session_required');
    expect(await connectionOf(d.brand.id)).toBeUndefined();
  });

  it('an expired flow fails', async () => {
    const d = await signedInDashboard(server);
    const { query } = await authorizeOnPlatform(d);
    await server.pool.query(
      `update connect_flows set expires_at = now() - interval '1 second' where account_id = $1`,
      [d.acct.accountId],
    );
    const res = await callback(query, d.cookie);
    expect(res.headers.get('location')).toBe('/settings/accounts?connect_error=expired&platform=x');
    expect(await connectionOf(d.brand.id)).toBeUndefined();
  });

  it('access_denied goes back with that reason, and an error_description of the link is never shown', async () => {
    const d = await signedInDashboard(server);
    const { query } = await authorizeOnPlatform(d, 'cancel');
    const res = await callback(`${query}&error_description=Call+0800+now`, d.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(
      '/settings/accounts?connect_error=access_denied&platform=x',
    );
    expect(await connectionOf(d.brand.id)).toBeUndefined();
  });

  it('a refused code exchange goes back with a reason of ours', async () => {
    const d = await signedInDashboard(server);
    const { query } = await authorizeOnPlatform(d);
    standIn.refuseCodes(true);
    try {
      const res = await callback(query, d.cookie);
      expect(res.headers.get('location')).toBe(
        '/settings/accounts?connect_error=token_exchange_failed&platform=x',
      );
    } finally {
      standIn.refuseCodes(false);
    }
    expect(await connectionOf(d.brand.id)).toBeUndefined();
  });

  it('a database failure while storing the connection is ours: not told as the identity call', async () => {
    const d = await signedInDashboard(server);
    const { query } = await authorizeOnPlatform(d);
    // A real database error on this brand's insert only (the other tests' brands go through).
    await server.pool.query(`
      create or replace function test_refuse_connection() returns trigger language plpgsql as $$
      begin
        if new.brand_id = '${d.brand.id}' then raise exception 'the disk is full'; end if;
        return new;
      end $$`);
    await server.pool.query(
      `create trigger test_refuse_connection before insert on connected_accounts
       for each row execute function test_refuse_connection()`,
    );
    try {
      const res = await callback(query, d.cookie);
      expect(res.headers.get('location')).toBe(
        '/settings/accounts?connect_error=failed&platform=x',
      );
    } finally {
      await server.pool.query('drop trigger test_refuse_connection on connected_accounts');
      await server.pool.query('drop function test_refuse_connection()');
    }
    expect(logged.join('\n')).toContain('connect: the callback failed');
    expect(await connectionOf(d.brand.id)).toBeUndefined();
  });

  it('reconnecting a connection that needs it keeps the same connection (and its posts)', async () => {
    const d = await signedInDashboard(server);
    await callback((await authorizeOnPlatform(d)).query, d.cookie);
    const first = await connectionOf(d.brand.id);
    await server.pool.query(
      `update connected_accounts set status = 'needs_reconnect', last_error = 'revoked' where id = $1`,
      [first.id],
    );
    const listed = await d.send('GET', '/platforms');
    expect(listed.body.find((p: any) => p.platform === 'x')).toMatchObject({
      state: 'needs_reconnect',
      last_error: 'revoked',
    });
    await callback((await authorizeOnPlatform(d)).query, d.cookie);
    const again = await connectionOf(d.brand.id);
    expect(again).toMatchObject({ id: first.id, status: 'active', last_error: null });
  });
});

describe("every platform's state (GET /app/api/platforms)", () => {
  it('lists all ten platforms with how each is connected or what is missing', async () => {
    const d = await signedInDashboard(server);
    const res = await d.send('GET', '/platforms');
    expect(res.status).toBe(200);
    const by = Object.fromEntries(res.body.map((p: any) => [p.platform, p]));
    expect(Object.keys(by)).toHaveLength(10);
    expect(by.bluesky).toMatchObject({ state: 'not_connected', connect: 'form', variables: [] });
    expect(by.x).toMatchObject({ state: 'not_connected', connect: 'oauth', handle: null });
    expect(by.threads).toMatchObject({ state: 'not_connected', connect: 'oauth' });
    expect(by.linkedin).toMatchObject({
      state: 'not_configured',
      connect: 'cli',
      variables: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'],
    });
    expect(by.youtube.variables).toEqual(['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET']);
  });
});
