// What anyone may make the OAuth server store, bounded per client address
// (api/oauth/addressLimits.ts): an authorization request stores an Interaction and a Session,
// a logout page a Session, signed in or not; past the bound an address gets 429 and nothing
// is stored, while another address goes on. The other address is a second loopback one.
import { describe, expect, it } from 'vitest';
import { AUTHORIZATIONS_PER_WINDOW } from '../../api/oauth/addressLimits.ts';
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
    expect(await callFrom('127.0.0.2', server, 'POST', path)).toMatchObject({ status: 429 });
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
