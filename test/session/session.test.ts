// Dashboard session routes end to end: login, session view, brand selection, API keys,
// and the protections (no bearer credentials, Origin check, login throttling).
import { describe, expect, it } from 'vitest';
import { createBrand } from '../../core/brands/service.ts';
import {
  call,
  login as loginAs,
  makeAccount,
  makeSignedInAccount,
  type TestAccount,
} from '../support/server.ts';
import { useServer } from '../support/service.ts';

const server = useServer({ env: { PUBLIC_BASE_URL: 'http://dashboard.example.test' } });

const login = (acct: TestAccount) => loginAs(server, acct);

const withCookie = (cookie: string, extra: Record<string, string> = {}) => ({
  headers: { cookie, ...extra },
});

describe('POST /auth/login', () => {
  it('sets an HttpOnly SameSite=Lax cookie and returns the account summary', async () => {
    const acct = await makeAccount(server.pool);
    const res = await call(server, 'POST', '/auth/login', {
      body: { email: acct.email.toUpperCase(), password: acct.password },
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^sps_session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // PUBLIC_BASE_URL is http here
    expect(res.body.account).toMatchObject({ id: acct.accountId, email: acct.email, plan: 'plus' });
    expect(res.body.selected_brand_id).toBe(acct.brandId);
  });

  it('a wrong password or unknown e-mail is 401', async () => {
    const acct = await makeAccount(server.pool);
    for (const body of [
      { email: acct.email, password: 'wrong password' },
      { email: 'nobody@example.com', password: 'whatever' },
    ]) {
      const res = await call(server, 'POST', '/auth/login', { body });
      expect(res.status).toBe(401);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('repeated failures are slowed: after five, even the right password waits', async () => {
    const acct = await makeAccount(server.pool);
    for (let i = 0; i < 5; i++) {
      const res = await call(server, 'POST', '/auth/login', {
        body: { email: acct.email, password: `wrong ${i}` },
        headers: { 'x-test': String(i) },
      });
      expect(res.status).toBe(401);
    }
    const res = await call(server, 'POST', '/auth/login', {
      body: { email: acct.email, password: acct.password },
    });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('login_throttled');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('GET /auth/session and PUT /auth/session/brand', () => {
  it('shows the account, brands and selected brand, and switches the selection', async () => {
    const acct = await makeAccount(server.pool);
    const second = await createBrand(server.pool, acct.accountId, {
      name: 'Second',
      timezone: 'Europe/Paris',
    });
    const cookie = await login(acct);
    const view = await call(server, 'GET', '/auth/session', withCookie(cookie));
    expect(view.status).toBe(200);
    expect(view.body.brands.map((b: { id: string }) => b.id)).toEqual([acct.brandId, second.id]);
    expect(view.body.selected_brand_id).toBe(acct.brandId);

    const put = await call(server, 'PUT', '/auth/session/brand', {
      ...withCookie(cookie),
      body: { brand_id: second.id },
    });
    expect(put.status).toBe(200);
    expect(put.body.selected_brand_id).toBe(second.id);
    const after = await call(server, 'GET', '/auth/session', withCookie(cookie));
    expect(after.body.selected_brand_id).toBe(second.id);
  });

  it("another account's brand answers 404 and changes nothing", async () => {
    const { acct, cookie } = await makeSignedInAccount(server);
    const other = await makeAccount(server.pool);
    const put = await call(server, 'PUT', '/auth/session/brand', {
      ...withCookie(cookie),
      body: { brand_id: other.brandId },
    });
    expect(put.status).toBe(404);
    const view = await call(server, 'GET', '/auth/session', withCookie(cookie));
    expect(view.body.selected_brand_id).toBe(acct.brandId);
  });

  it('without a session the routes answer 401', async () => {
    const res = await call(server, 'GET', '/auth/session');
    expect(res.status).toBe(401);
    const forged = await call(server, 'GET', '/auth/session', withCookie('sps_session=abc.def'));
    expect(forged.status).toBe(401);
  });

  it('logout ends the session', async () => {
    const { cookie } = await makeSignedInAccount(server);
    expect((await call(server, 'POST', '/auth/logout', withCookie(cookie))).status).toBe(204);
    expect((await call(server, 'GET', '/auth/session', withCookie(cookie))).status).toBe(401);
  });
});

describe('/apikeys', () => {
  it('creates a key shown once, lists it without the secret, and deletes it at once', async () => {
    const { cookie } = await makeSignedInAccount(server);
    const created = await call(server, 'POST', '/apikeys', {
      ...withCookie(cookie),
      body: { name: 'ci', scopes: ['read', 'publish', 'read'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      name: 'ci',
      scopes: ['read', 'publish'],
    });
    expect(created.body.key).toMatch(/^sps_[0-9A-Za-z]{32,}$/);
    const key = created.body.key as string;

    const me = await call(server, 'GET', '/v1/me', { key });
    expect(me.body.scopes).toEqual(['read', 'publish']);

    const list = await call(server, 'GET', '/apikeys', withCookie(cookie));
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toEqual({
      id: created.body.id,
      name: 'ci',
      scopes: ['read', 'publish'],
      created_at: expect.any(String),
      last_used_at: expect.any(String),
    });
    expect(JSON.stringify(list.body)).not.toContain(key);

    const del = await call(server, 'DELETE', `/apikeys/${created.body.id}`, withCookie(cookie));
    expect(del.status).toBe(204);
    expect((await call(server, 'GET', '/v1/me', { key })).status).toBe(401);
    expect(
      (await call(server, 'DELETE', `/apikeys/${created.body.id}`, withCookie(cookie))).status,
    ).toBe(404);
  });

  it("refuses unknown scopes with 422, and another account's key id with 404", async () => {
    const { cookie } = await makeSignedInAccount(server);
    const other = await makeAccount(server.pool);
    const bad = await call(server, 'POST', '/apikeys', {
      ...withCookie(cookie),
      body: { name: 'x', scopes: ['admin'] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'scopes', 0]);
    const otherCookie = await login(other);
    const theirs = await call(server, 'POST', '/apikeys', {
      ...withCookie(otherCookie),
      body: { scopes: ['read'] },
    });
    const res = await call(server, 'DELETE', `/apikeys/${theirs.body.id}`, withCookie(cookie));
    expect(res.status).toBe(404);
    expect((await call(server, 'GET', '/v1/me', { key: theirs.body.key })).status).toBe(200);
  });

  it('refuses a bearer credential: session routes need the dashboard session', async () => {
    const { cookie } = await makeSignedInAccount(server);
    const created = await call(server, 'POST', '/apikeys', {
      ...withCookie(cookie),
      body: { scopes: ['read', 'publish'] },
    });
    const key = created.body.key as string;
    const res = await call(server, 'POST', '/apikeys', { key, body: { scopes: ['read'] } });
    expect(res.status).toBe(401);
    expect((await call(server, 'GET', '/apikeys', { key })).status).toBe(401);
  });

  it('refuses a state-changing request from a foreign Origin, accepts its own', async () => {
    const { cookie } = await makeSignedInAccount(server);
    const foreign = await call(server, 'POST', '/apikeys', {
      ...withCookie(cookie, { origin: 'https://evil.example' }),
      body: { scopes: ['read'] },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('origin_mismatch');
    const own = await call(server, 'POST', '/apikeys', {
      ...withCookie(cookie, { origin: 'http://dashboard.example.test' }),
      body: { scopes: ['read'] },
    });
    expect(own.status).toBe(201);
    const list = await call(
      server,
      'GET',
      '/apikeys',
      withCookie(cookie, { origin: 'https://evil.example' }),
    );
    expect(list.body).toHaveLength(1);
  });
});
