// What anyone may make the OAuth server store, bounded per client address
// (api/oauth/addressLimits.ts): an authorization request stores an Interaction and a Session,
// a logout page a Session, signed in or not; past the bound an address gets 429 and nothing
// is stored, while another address goes on. The other address is a second loopback one.
// The provider's router ignores case and a trailing slash, so every other spelling of these
// paths (case, slashes, `;`, percent-encoding) is refused before it reaches the provider.
import { describe, expect, it } from 'vitest';
import {
  AUTHORIZATIONS_PER_WINDOW,
  MAX_REGISTRATION_BYTES,
  REGISTRATIONS_PER_WINDOW,
} from '../../api/oauth/addressLimits.ts';
import { callFrom } from '../support/fromAddress.ts';
import { CLIENT_REDIRECT } from '../support/oauth.ts';
import { call } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const server = useServer();

const storedRows = async () =>
  Number((await server.pool.query('select count(*) from oauth_payloads')).rows[0].count);

async function registeredClient(): Promise<string> {
  const res = await call(server, 'POST', '/oauth/register', {
    body: {
      client_name: 'Bounded',
      redirect_uris: [CLIENT_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
  });
  expect(res.status).toBe(201);
  return res.body.client_id;
}

const authorizePath = (clientId: string) =>
  `/oauth/authorize?${new URLSearchParams({
    client_id: clientId,
    redirect_uri: CLIENT_REDIRECT,
    response_type: 'code',
    scope: 'read',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  })}`;

/** From `address`, `count` requests for `path`, each answered without 429. */
async function admitted(address: string, path: string, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await callFrom(address, server, 'GET', path);
    expect([i, res.status]).toEqual([i, expect.toSatisfy((s: number) => s !== 429)]);
  }
}

describe('anonymous requests that store rows are bounded per address', () => {
  it(`an address opens ${AUTHORIZATIONS_PER_WINDOW} authorization requests a window; another address is not held back`, async () => {
    const path = authorizePath(await registeredClient());
    const before = await storedRows();
    await admitted('127.0.0.2', path, AUTHORIZATIONS_PER_WINDOW);
    // Each stored something: this is what the bound is for.
    expect(await storedRows()).toBeGreaterThanOrEqual(before + AUTHORIZATIONS_PER_WINDOW);

    const stored = await storedRows();
    const refused = await callFrom('127.0.0.2', server, 'GET', path);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('authorization_throttled');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await callFrom('127.0.0.2', server, 'HEAD', path)).toMatchObject({ status: 429 });
    // The provider answers no POST here (enableHttpPostMethods is off).
    expect(await callFrom('127.0.0.2', server, 'POST', path)).toMatchObject({ status: 404 });
    expect(await storedRows()).toBe(stored);

    const elsewhere = await callFrom('127.0.0.3', server, 'GET', path);
    expect(elsewhere.status).toBe(303);
  });

  it(`an address opens ${AUTHORIZATIONS_PER_WINDOW} logout pages a window`, async () => {
    const before = await storedRows();
    await admitted('127.0.0.4', '/oauth/session/end', AUTHORIZATIONS_PER_WINDOW);
    expect(await storedRows()).toBeGreaterThanOrEqual(before + AUTHORIZATIONS_PER_WINDOW);

    const stored = await storedRows();
    const refused = await callFrom('127.0.0.4', server, 'GET', '/oauth/session/end');
    expect([refused.status, refused.body.code]).toEqual([429, 'logout_throttled']);
    expect(await storedRows()).toBe(stored);
    expect((await callFrom('127.0.0.5', server, 'GET', '/oauth/session/end')).status).toBe(200);
  });
});

/**
 * Other spellings of a path that oidc-provider's router (case-insensitive, a trailing slash
 * forgiven) or a lenient router could take for it: each segment in capitals or percent-encoded,
 * trailing and doubled slashes, `;` parameters, dot segments, an encoded slash.
 */
function spellings(path: string): string[] {
  const segments = path.split('/').slice(1);
  const each = (change: (s: string) => string) =>
    segments.map((_, i) => `/${segments.map((s, j) => (i === j ? change(s) : s)).join('/')}`);
  const last = path.lastIndexOf('/');
  return [
    ...each((s) => s.toUpperCase()),
    ...each((s) => s.charAt(0).toUpperCase() + s.slice(1)),
    ...each((s) => `%${s.charCodeAt(0).toString(16)}${s.slice(1)}`),
    ...each((s) => `%${s.charCodeAt(0).toString(16).toUpperCase()}${s.slice(1)}`),
    path.toUpperCase(),
    `${path}/`,
    `${path}//`,
    `/${path}`,
    path.replace('/oauth/', '/oauth//'),
    `${path.slice(0, last)}//${path.slice(last + 1)}`,
    `${path};x`,
    `${path}/;x`,
    `${path}/.`,
    `${path.slice(0, last)}/./${path.slice(last + 1)}`,
    `${path}%2F`,
    `${path}%2f`,
    `${path}/%2F`,
    `${path}%20`,
    `${path}%00`,
  ];
}

describe('another spelling of a bounded path never reaches the provider', () => {
  it('authorization requests and logout pages: every spelling is 404 and stores nothing', async () => {
    const query = authorizePath(await registeredClient()).split('?')[1];
    const before = await storedRows();
    for (const [path, suffix] of [
      ['/oauth/authorize', `?${query}`],
      ['/oauth/session/end', ''],
    ] as const)
      for (const spelling of spellings(path))
        for (const method of ['GET', 'HEAD', 'POST']) {
          const res = await callFrom('127.0.0.8', server, method, spelling + suffix);
          expect([method, spelling, res.status]).toEqual([method, spelling, 404]);
        }
    expect(await storedRows()).toBe(before);
    // The address was charged nothing: its canonical requests go on.
    expect((await callFrom('127.0.0.8', server, 'GET', `/oauth/authorize?${query}`)).status).toBe(
      303,
    );
  });

  it('the canonical spellings reach the provider: its pages, documents and CORS preflights', async () => {
    const preflight = {
      origin: 'http://127.0.0.1:65530',
      'access-control-request-method': 'POST',
    };
    for (const [method, path, status, headers] of [
      ['GET', '/oauth/jwks', 200, {}],
      ['OPTIONS', '/oauth/jwks', 204, { ...preflight, 'access-control-request-method': 'GET' }],
      ['OPTIONS', '/oauth/token', 204, preflight],
      ['OPTIONS', '/oauth/revoke', 204, preflight],
      ['GET', '/oauth/session/end/success', 200, {}],
      ['GET', '/.well-known/openid-configuration', 200, {}],
      ['GET', '/.well-known/oauth-authorization-server', 200, {}],
    ] as const) {
      const res = await callFrom('127.0.0.11', server, method, path, { headers });
      expect([method, path, res.status]).toEqual([method, path, status]);
    }
  });

  const clientRows = async () =>
    Number(
      (await server.pool.query(`select count(*) from oauth_payloads where model = 'Client'`))
        .rows[0].count,
    );
  const registration = (name: string) => ({
    client_name: name,
    redirect_uris: [CLIENT_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });

  it(`registration: past ${REGISTRATIONS_PER_WINDOW} an address registers nothing by any spelling`, async () => {
    for (let i = 0; i < REGISTRATIONS_PER_WINDOW; i++) {
      const res = await callFrom('127.0.0.9', server, 'POST', '/oauth/register', {
        body: registration(`Client ${i}`),
      });
      expect([i, res.status]).toEqual([i, 201]);
    }
    const stored = await clientRows();
    for (const path of ['/oauth/register', ...spellings('/oauth/register')]) {
      const res = await callFrom('127.0.0.9', server, 'POST', path, {
        body: registration('One more'),
      });
      expect([path, res.status]).toEqual([path, path === '/oauth/register' ? 429 : 404]);
    }
    expect(await clientRows()).toBe(stored);
  });

  it(`registration: a body past ${MAX_REGISTRATION_BYTES / 1024} KB is stored by no spelling`, async () => {
    const large = registration('x'.repeat(40 * 1024));
    const stored = await clientRows();
    for (const path of ['/oauth/register', ...spellings('/oauth/register')]) {
      const res = await callFrom('127.0.0.10', server, 'POST', path, { body: large });
      expect([path, res.status]).toEqual([path, path === '/oauth/register' ? 413 : 404]);
    }
    expect(await clientRows()).toBe(stored);
  });
});
