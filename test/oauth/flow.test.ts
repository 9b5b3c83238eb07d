// The OAuth server step by step with oauth4webapi (a certified client library): each metadata
// document, registration, authorization code with PKCE through the consent page, the token
// on /v1, refresh and revocation; and every refusal it owes: a wrong code_verifier,
// a reused code, a token for another resource, a revoked token, a refresh token reused after
// rotation (the family revoked), a redirect_uri not registered, a consent answer from another
// Origin, a denial, and a Client ID Metadata Document on a local address.
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch } from '../../api/oauth/provider.ts';
import { deleteExpiredOAuthState } from '../../core/oauth/service.ts';
import { parseAllowlist } from '../../core/outbound/addresses.ts';
import { outboundPolicy } from '../../core/outbound/guard.ts';
import { freePort } from '../support/browser.ts';
import { startJsonServer } from '../support/jsonServer.ts';
import { CLIENT_REDIRECT, type ConsentAnswer, CookieJar, consentAs } from '../support/oauth.ts';
import { call, makeSignedInAccount } from '../support/server.ts';
import { useServer } from '../support/service.ts';

let port = 0;
beforeAll(async () => {
  port = await freePort();
});
const server = useServer(() => ({ port, env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } }));
const base = () => `http://127.0.0.1:${port}`;
const insecure = { [oauth.allowInsecureRequests]: true };

async function authorizationServer() {
  const issuer = new URL(base());
  const res = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure });
  return oauth.processDiscoveryResponse(issuer, res);
}

async function registered(as: oauth.AuthorizationServer) {
  const res = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: 'Step by step',
      redirect_uris: [CLIENT_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    insecure,
  );
  return (await oauth.processDynamicClientRegistrationResponse(res)) as oauth.Client;
}

/** An authorization request for `{base}/mcp` with PKCE, as a client sends the person. */
async function authorizationUrl(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  verifier: string,
  extra: Record<string, string> = {},
) {
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: CLIENT_REDIRECT,
    response_type: 'code',
    scope: 'read publish',
    resource: `${base()}/mcp`,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 'st4te',
    ...extra,
  }).toString();
  return url;
}

type Person = { cookie: string; origin: string };
const allowAll = (v: { scopes: { name: string }[]; brand_id: string | null }): ConsentAnswer => ({
  allow: true,
  scopes: v.scopes.map((s) => s.name),
  brand_id: v.brand_id!,
});

async function person(): Promise<Person> {
  const { cookie } = await makeSignedInAccount(server, 'plus');
  return { cookie, origin: base() };
}

/** Registration, consent and the code exchange: a client holding tokens. */
/** A registered client holding a code `who` consented to, and how to exchange it. */
async function consentedCode(who: Person) {
  const as = await authorizationServer();
  const client = await registered(as);
  const verifier = oauth.generateRandomCodeVerifier();
  const { redirect, jar } = await consentAs(
    server,
    who,
    await authorizationUrl(as, client, verifier),
    allowAll,
  );
  const params = oauth.validateAuthResponse(as, client, redirect, 'st4te');
  /** The token request for the code, with `codeVerifier` (the right one unless given). */
  const exchange = (codeVerifier = verifier) =>
    oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      CLIENT_REDIRECT,
      codeVerifier,
      insecure,
    );
  return { as, client, params, verifier, jar, exchange };
}

async function signedInClient(who: Person) {
  const { as, client, params, verifier, jar, exchange } = await consentedCode(who);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange());
  return { as, client, tokens, params, verifier, jar };
}

const me = (token: string) => call(server, 'GET', '/v1/me', { key: token });

describe('OAuth metadata', () => {
  it('publishes the resource and authorization server documents MCP clients read', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const res = await fetch(`${base()}${path}`);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const doc = await res.json();
      expect(doc).toMatchObject({
        resource: `${base()}/mcp`,
        authorization_servers: [base()],
        scopes_supported: ['read', 'publish', 'media', 'generate', 'engage'],
      });
    }
    const resource = await oauth.processResourceDiscoveryResponse(
      new URL(`${base()}/mcp`),
      await oauth.resourceDiscoveryRequest(new URL(`${base()}/mcp`), insecure),
    );
    expect(resource.authorization_servers).toEqual([base()]);

    const as = await authorizationServer();
    expect(as).toMatchObject({
      issuer: base(),
      authorization_endpoint: `${base()}/oauth/authorize`,
      token_endpoint: `${base()}/oauth/token`,
      registration_endpoint: `${base()}/oauth/register`,
      revocation_endpoint: `${base()}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
    expect(as.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token']),
    );
    // OpenID discovery answers the same server.
    const oidc = await oauth.processDiscoveryResponse(
      new URL(base()),
      await oauth.discoveryRequest(new URL(base()), { algorithm: 'oidc', ...insecure }),
    );
    expect(oidc.token_endpoint).toBe(as.token_endpoint);
  });
});

describe('OAuth sign-in, step by step', () => {
  it('exchanges a code with PKCE, refreshes, and revokes (RFC 7009): the token then fails', async () => {
    const { as, client, tokens } = await signedInClient(await person());
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope?.split(' ').sort()).toEqual(['publish', 'read']);
    expect((await me(tokens.access_token)).body.scopes).toEqual(['read', 'publish']);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(
        as,
        client,
        oauth.None(),
        tokens.refresh_token!,
        insecure,
      ),
    );
    expect((await me(refreshed.access_token)).status).toBe(200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), refreshed.access_token, insecure),
    );
    expect((await me(refreshed.access_token)).status).toBe(401);
  });

  it('refuses a wrong code_verifier, then the same code again', async () => {
    const { as, client, exchange } = await consentedCode(await person());
    const wrong = await exchange(oauth.generateRandomCodeVerifier());
    expect([wrong.status, (await wrong.json()).error]).toEqual([400, 'invalid_grant']);
    const first = await exchange();
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, first);
    expect((await me(tokens.access_token)).status).toBe(200);
    const reused = await exchange();
    expect([reused.status, (await reused.json()).error]).toEqual([400, 'invalid_grant']);
  });

  it('revokes the whole family when a rotated refresh token is used again', async () => {
    const { as, client, tokens } = await signedInClient(await person());
    const refresh = (t: string) =>
      oauth.refreshTokenGrantRequest(as, client, oauth.None(), t, insecure);
    const next = await oauth.processRefreshTokenResponse(
      as,
      client,
      await refresh(tokens.refresh_token!),
    );
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    const replay = await refresh(tokens.refresh_token!);
    expect([replay.status, (await replay.json()).error]).toEqual([400, 'invalid_grant']);
    // Everything of that grant is gone: the newest access and refresh tokens too.
    expect((await me(next.access_token)).status).toBe(401);
    const after = await refresh(next.refresh_token!);
    expect(after.status).toBe(400);
  });

  it('20 exchanges of one code at the same moment: one gets tokens, then the grant is revoked', async () => {
    const { as, client, exchange } = await consentedCode(await person());
    const replies = await Promise.all(Array.from({ length: 20 }, () => exchange()));
    const bodies = await Promise.all(replies.map((r) => r.json()));
    const won = bodies.filter((_, i) => replies[i]!.status === 200);
    expect(won).toHaveLength(1);
    expect(bodies.filter((b) => b.error === 'invalid_grant')).toHaveLength(19);
    // Nobody can tell the client from a thief: what the one exchange got works no longer.
    expect((await me(won[0].access_token)).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      won[0].refresh_token,
      insecure,
    );
    expect([refresh.status, (await refresh.json()).error]).toEqual([400, 'invalid_grant']);
    const grants = await server.pool.query('select 1 from oauth_grants where client_id = $1', [
      client.client_id,
    ]);
    expect(grants.rows).toEqual([]);
    // Tokens the winning exchange saved after the revocation are swept with the expired ones.
    await deleteExpiredOAuthState(server.pool);
    const left = await server.pool.query(
      `select model from oauth_payloads
        where model in ('AccessToken', 'RefreshToken', 'AuthorizationCode')
          and payload->>'clientId' = $1`,
      [client.client_id],
    );
    expect(left.rows).toEqual([]);
  });

  it('20 refreshes with one refresh token at the same moment: one succeeds, then the grant is revoked', async () => {
    const { as, client, tokens } = await signedInClient(await person());
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
      ),
    );
    const bodies = await Promise.all(replies.map((r) => r.json()));
    const won = bodies.filter((_, i) => replies[i]!.status === 200);
    expect(won).toHaveLength(1);
    expect(bodies.filter((b) => b.error === 'invalid_grant')).toHaveLength(19);
    // The chain the one refresh started is dead, and so is the token the client held before.
    expect((await me(won[0].access_token)).status).toBe(401);
    expect((await me(tokens.access_token)).status).toBe(401);
    const next = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      won[0].refresh_token,
      insecure,
    );
    expect([next.status, (await next.json()).error]).toEqual([400, 'invalid_grant']);
  });

  it('refuses a token for another audience, and a request for another resource', async () => {
    const who = await person();
    const { tokens } = await signedInClient(who);
    expect((await me(tokens.access_token)).status).toBe(200);
    // The same token, bound to another resource: refused like an unknown one.
    await server.pool.query(
      `update oauth_payloads set payload = jsonb_set(payload, '{aud}', '"https://elsewhere.example/mcp"')
        where model = 'AccessToken' and id = $1`,
      [tokens.access_token],
    );
    const refused = await me(tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const as = await authorizationServer();
    const client = await registered(as);
    const url = await authorizationUrl(as, client, oauth.generateRandomCodeVerifier(), {
      resource: 'https://elsewhere.example/mcp',
    });
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: who.cookie } });
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(CLIENT_REDIRECT);
    expect(back.searchParams.get('error')).toBe('invalid_target');
  });

  it('never redirects to an address the client did not register', async () => {
    const as = await authorizationServer();
    const client = await registered(as);
    const url = await authorizationUrl(as, client, oauth.generateRandomCodeVerifier(), {
      redirect_uri: 'https://attacker.example/cb',
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('redirect_uri');
  });

  it('refuses a consent answer sent from another Origin, and answers a denial with access_denied', async () => {
    const who = await person();
    const as = await authorizationServer();
    const client = await registered(as);
    const url = await authorizationUrl(as, client, oauth.generateRandomCodeVerifier());
    const jar = new CookieJar(who.cookie);
    const first = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header } });
    jar.take(first);
    const uid = first.headers.get('location')!.split('/').at(-1)!;
    const csrf = (
      await call(server, 'GET', '/app/api/session', { headers: { cookie: who.cookie } })
    ).body.csrf_token;
    const forged = await call(server, 'POST', `/oauth/consent/${uid}/decision`, {
      headers: { cookie: jar.header, origin: 'https://attacker.example', 'x-csrf-token': csrf },
      body: { allow: true, scopes: ['read', 'publish'] },
    });
    expect([forged.status, forged.body.code]).toEqual([403, 'origin_required']);
    expect(
      (await call(server, 'GET', '/app/api/oauth/clients', { headers: { cookie: who.cookie } }))
        .body,
    ).toEqual([]);

    const { redirect } = await consentAs(server, who, url, () => ({ allow: false }));
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(() => oauth.validateAuthResponse(as, client, redirect, 'st4te')).toThrow();
  });

  it('shows the consent page what the client asks for, and sends a signed-out person to sign in', async () => {
    const as = await authorizationServer();
    const client = await registered(as);
    const url = await authorizationUrl(as, client, oauth.generateRandomCodeVerifier(), {
      scope: 'read media',
    });
    const jar = new CookieJar();
    const first = await fetch(url, { redirect: 'manual' });
    jar.take(first);
    const uid = first.headers.get('location')!.split('/').at(-1)!;
    // No dashboard session: the page's data asks for one (the page then opens sign-in).
    const anonymous = await call(server, 'GET', `/oauth/consent/${uid}/details`, {
      headers: { cookie: jar.header },
    });
    expect(anonymous.status).toBe(401);
    const who = await person();
    const signed = await call(server, 'GET', `/oauth/consent/${uid}/details`, {
      headers: { cookie: `${jar.header}; ${who.cookie}` },
    });
    expect(signed.body).toMatchObject({
      client_name: 'Step by step',
      redirect_host: '127.0.0.1:65530',
      scopes: [
        { name: 'read', meaning: expect.any(String) },
        { name: 'media', meaning: expect.any(String) },
      ],
      // Registered just now, but it sends you back to this machine: no warning.
      warning: null,
    });
  });

  it('warns about a client registered moments ago that sends you to another host', async () => {
    const as = await authorizationServer();
    const res = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: 'Fresh',
        redirect_uris: ['https://app.example/cb'],
        token_endpoint_auth_method: 'none',
      },
      insecure,
    );
    const client = (await oauth.processDynamicClientRegistrationResponse(res)) as oauth.Client;
    const url = await authorizationUrl(as, client, oauth.generateRandomCodeVerifier(), {
      redirect_uri: 'https://app.example/cb',
    });
    const jar = new CookieJar((await person()).cookie);
    const first = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header } });
    jar.take(first);
    const uid = first.headers.get('location')!.split('/').at(-1)!;
    const view = await call(server, 'GET', `/oauth/consent/${uid}/details`, {
      headers: { cookie: jar.header },
    });
    expect(view.body.redirect_host).toBe('app.example');
    expect(view.body.warning).toMatch(/registered itself .* minute\(s\) ago .* app\.example/);
  });

  it('treats a token like a key: the plan is read on every request, and the audit names the client', async () => {
    const who = await makeSignedInAccount(server, 'plus');
    const { client, tokens } = await signedInClient({ cookie: who.cookie, origin: base() });
    const made = await call(server, 'POST', '/v1/posts', {
      key: tokens.access_token,
      body: { platform: 'mastodon', body: 'By an app' },
    });
    expect(made.status).toBe(201);
    const audit = await server.pool.query(
      'select actor_kind, actor_id from audit_log where post_id = $1',
      [made.body.id],
    );
    expect(audit.rows).toEqual([{ actor_kind: 'oauth', actor_id: client.client_id }]);
    await server.pool.query(`update accounts set plan = 'free' where id = $1`, [
      who.acct.accountId,
    ]);
    const lowered = await me(tokens.access_token);
    expect([lowered.status, lowered.body.code]).toEqual([403, 'plan_required']);
  });

  it('asks for consent again on every sign-in, whatever the provider remembers', async () => {
    const who = await person();
    const as = await authorizationServer();
    const client = await registered(as);
    const { jar } = await consentAs(
      server,
      who,
      await authorizationUrl(as, client, oauth.generateRandomCodeVerifier()),
      allowAll,
    );
    // Signed out of the dashboard, the browser still holds the provider's own session.
    await call(server, 'POST', '/auth/logout', { headers: { cookie: who.cookie } });
    const again = await fetch(
      await authorizationUrl(as, client, oauth.generateRandomCodeVerifier()),
      {
        redirect: 'manual',
        headers: { cookie: jar.header },
      },
    );
    expect(again.headers.get('location')).toMatch(/^\/oauth\/consent\//);
  });

  it("keeps one person's tokens when another signs in through the same browser", async () => {
    const { as, client, tokens, jar } = await signedInClient(await person());
    // Bob, in the same browser (alice's provider session still in its cookies), allows too.
    const bob = await person();
    const providerCookies = [...jar.cookies]
      .filter(([name]) => name.startsWith('_session'))
      .map(([k, v]) => `${k}=${v}`)
      .join('; ');
    await consentAs(
      server,
      { ...bob, cookie: `${bob.cookie}; ${providerCookies}` },
      await authorizationUrl(as, client, oauth.generateRandomCodeVerifier()),
      allowAll,
    );
    // The provider ended alice's session on the way (its logout page): her tokens live on,
    // tied to her grant, not to that session.
    expect((await me(tokens.access_token)).status).toBe(200);
  });

  it('refuses an authorization without a code_challenge, or with the plain method', async () => {
    const as = await authorizationServer();
    const client = await registered(as);
    for (const extra of [
      { code_challenge: '', code_challenge_method: '' },
      { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' },
    ]) {
      const url = await authorizationUrl(as, client, oauth.generateRandomCodeVerifier(), extra);
      const res = await fetch(url, { redirect: 'manual' });
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(CLIENT_REDIRECT);
      expect(back.searchParams.get('error')).toBe('invalid_request');
    }
  });

  it("lets a client revoke its own tokens only: another client's stay", async () => {
    const { tokens } = await signedInClient(await person());
    const as = await authorizationServer();
    const other = await registered(as);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, other, oauth.None(), tokens.access_token, insecure),
    );
    expect((await me(tokens.access_token)).status).toBe(200);
  });

  it('drops codes and tokens past their expiry in the hourly cleanup', async () => {
    const { tokens } = await signedInClient(await person());
    await server.pool.query(
      `update oauth_payloads set expires_at = now() - interval '1 second'
        where model = 'AccessToken' and id = $1`,
      [tokens.access_token],
    );
    expect(await deleteExpiredOAuthState(server.pool)).toBeGreaterThan(0);
    const left = await server.pool.query('select 1 from oauth_payloads where id = $1', [
      tokens.access_token,
    ]);
    expect(left.rows).toEqual([]);
    // A client registered two days ago and never allowed goes; one that was allowed stays.
    const as = await authorizationServer();
    const unused = await registered(as);
    await server.pool.query(
      `update oauth_payloads set payload = jsonb_set(payload, '{client_id_issued_at}',
         to_jsonb(extract(epoch from now() - interval '2 days')::bigint))
        where model = 'Client'`,
    );
    await deleteExpiredOAuthState(server.pool);
    const clients = await server.pool.query(`select id from oauth_payloads where model = 'Client'`);
    expect(clients.rows.map((r) => r.id)).not.toContain(unused.client_id);
    expect(clients.rows.length).toBeGreaterThan(0);
  });

  it('fetches a Client ID Metadata Document only through the outbound guard', async () => {
    const as = await authorizationServer();
    const url = await authorizationUrl(
      as,
      { client_id: 'https://127.0.0.1:9/client.json' } as oauth.Client,
      oauth.generateRandomCodeVerifier(),
    );
    const res = await fetch(url, { redirect: 'manual' });
    // A local address is refused: the client is unknown, nothing redirects.
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/invalid_client.*metadata document/);

    // The fetch the provider is given is the guard's: a local address is refused unless the
    // operator allows it, and then the document is read (at most 64 KB).
    const doc = await startJsonServer((_req, reply) =>
      reply(200, { client_id: 'x', redirect_uris: [CLIENT_REDIRECT] }),
    );
    try {
      await expect(
        guardedFetch(outboundPolicy(server.config))(`${doc.url}/client.json`),
      ).rejects.toThrow();
      const allowed = guardedFetch({ allowlist: parseAllowlist(['127.0.0.0/8']), allowHttp: true });
      const fetched = await allowed(`${doc.url}/client.json`);
      expect(await fetched.json()).toMatchObject({ redirect_uris: [CLIENT_REDIRECT] });
    } finally {
      await doc.close();
    }
  });
});
