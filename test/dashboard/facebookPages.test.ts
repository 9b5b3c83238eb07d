// Choosing the Facebook Page a connection publishes as, from the dashboard (GET
// /app/api/accounts/{id}/pages, PUT /app/api/accounts/{id}/page), against the Meta stand-in:
// the Pages the stored user token lists (ids and names, never a token), the chosen Page's token
// sealed with its page_id and name in the same connection, a Page the user does not manage
// refused, a connection without a user token asked to reconnect, another account's connection
// not found, Facebook's hostile answers refused, and no token in an answer or a log.
import { describe, expect, it } from 'vitest';
import {
  configuredCredentialsKey,
  connectWithTokens,
  openCredentials,
} from '../../core/connections/service.ts';
import { createLogger } from '../../core/logger.ts';
import {
  connectFacebook,
  facebookMetaEnv,
  useFacebookMeta,
} from '../support/facebookConnection.ts';
import { logSink } from '../support/logs.ts';
import { META_APP } from '../support/platforms/metaOauth.ts';
import { type Answer, json } from '../support/platforms/standIn.ts';
import { call, makeAccount, signedInDashboard } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const logged: string[] = [];
/** An answer /me/accounts gives instead of the stand-in's own, while set. */
let accountsAnswer: Answer | undefined;

const meta = useFacebookMeta((r) => (r.path === '/v25.0/me/accounts' ? accountsAnswer : undefined));
const server = useServer(() => ({
  env: facebookMetaEnv(meta),
  logger: createLogger(
    'info',
    logSink((line) => logged.push(line)),
  ) as never,
}));

type Dashboard = Awaited<ReturnType<typeof signedInDashboard>>;

/** A signed-in person whose brand connected Facebook through the connect (the first Page). */
async function connected(): Promise<{ d: Dashboard; id: string; userToken: string }> {
  const d = await signedInDashboard(server);
  const { id, tokens } = await connectFacebook(server, meta, {
    accountId: d.acct.accountId,
    brandId: d.brand.id,
  });
  return { d, id, userToken: String(tokens.refresh_token) };
}

const rowOf = async (id: string) =>
  (
    await server.pool.query(
      `select id::text, handle, status, credentials, token_expires_at
       from connected_accounts where id = $1`,
      [id],
    )
  ).rows[0];
const credentialsOf = async (id: string) =>
  openCredentials(configuredCredentialsKey(server.config), (await rowOf(id)).credentials);

/** Every live token the stand-in issued: none may be in an answer or a log line. */
const issuedTokens = () => [...meta.tokens.keys()];
const expectNoToken = (text: string) => {
  for (const token of issuedTokens()) expect(text).not.toContain(token);
};

describe('listing the Pages (GET /app/api/accounts/{id}/pages)', () => {
  it('answers the Pages the user manages, ids and names only, and the one it publishes as', async () => {
    const { d, id } = await connected();
    meta.received.length = 0;
    const res = await d.send('GET', `/accounts/${id}/pages`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      page_id: '101000000000001',
      pages: [
        { id: '101000000000001', name: 'Brand Studio' },
        { id: '101000000000002', name: 'Brand Shop' },
      ],
    });
    expectNoToken(JSON.stringify(res.body));
    // Facebook is not asked for the Pages' tokens just to list them.
    const asked = meta.received.find((r) => r.path === '/v25.0/me/accounts')!;
    expect(asked.query.fields).toBe('id,name');
  });

  it("another account's connection, or none: 404", async () => {
    const { id } = await connected();
    const stranger = await signedInDashboard(server);
    const res = await stranger.send('GET', `/accounts/${id}/pages`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    expect((await stranger.send('GET', '/accounts/999999999/pages')).status).toBe(404);
    expect(
      (await stranger.send('PUT', `/accounts/${id}/page`, { page_id: '101000000000002' })).status,
    ).toBe(404);
    expect((await rowOf(id)).handle).toBe('Brand Studio');
  });

  it('a connection with only a Page token (the CLI): 409 saying to reconnect from the dashboard', async () => {
    const d = await signedInDashboard(server);
    const { tokens } = await connectFacebook(server, meta, await makeAccount(server.pool));
    const { id } = await connectWithTokens(server.pool, server.config, {
      accountId: d.acct.accountId,
      brandId: d.brand.id,
      platform: 'facebook',
      credentials: { access_token: tokens.access_token as string, page_id: '101000000000001' },
    });
    const res = await d.send('GET', `/accounts/${id}/pages`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('reconnect_required');
    expect(res.body.detail).toMatch(/reconnect Facebook from the Accounts page/);
    const put = await d.send('PUT', `/accounts/${id}/page`, { page_id: '101000000000002' });
    expect(put.status).toBe(409);
  });

  it('a connection on another platform: 422', async () => {
    const d = await signedInDashboard(server);
    const { rows } = await server.pool.query(
      `insert into connected_accounts (account_id, brand_id, platform, handle)
       values ($1, $2, 'mastodon', 'someone') returning id::text`,
      [d.acct.accountId, d.brand.id],
    );
    const res = await d.send('GET', `/accounts/${rows[0].id}/pages`);
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.detail)).toMatch(/only a Facebook connection/);
  });

  it('a user token Facebook refuses: 409 to reconnect, without the token', async () => {
    const { d, id, userToken } = await connected();
    meta.tokens.delete(userToken);
    const res = await d.send('GET', `/accounts/${id}/pages`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('reconnect_required');
    expect(res.body.detail).toContain('Invalid OAuth access token');
    expect(JSON.stringify(res.body)).not.toContain(userToken);
  });

  it('needs the CSRF token and our Origin', async () => {
    const { d, id } = await connected();
    const path = `/app/api/accounts/${id}/page`;
    const body = { page_id: '101000000000002' };
    const noCsrf = await call(server, 'PUT', path, {
      headers: { cookie: d.cookie, origin: d.headers.origin },
      body,
    });
    expect(noCsrf.status).toBe(403);
    const foreign = await call(server, 'PUT', path, {
      headers: { ...d.headers, origin: 'https://evil.example' },
      body,
    });
    expect(foreign.status).toBe(403);
    expect((await rowOf(id)).handle).toBe('Brand Studio');
  });
});

describe("Facebook's hostile answers to the Page list", () => {
  it('entries without an id or a name, or with ids not exact, are left out', async () => {
    const { d, id } = await connected();
    accountsAnswer = json(200, {
      data: [
        { name: 'No id' },
        { id: '101000000000002' },
        { id: 1.5e300, name: 'Rounded' },
        { id: '../../me', name: 'Path' },
        'not a page',
        null,
        { id: '101000000000002', name: 'Brand Shop', access_token: 'EAAPleaked' },
        { id: '101000000000002', name: 'Brand Shop twice' },
      ],
    });
    try {
      const res = await d.send('GET', `/accounts/${id}/pages`);
      expect(res.status).toBe(200);
      expect(res.body.pages).toEqual([{ id: '101000000000002', name: 'Brand Shop' }]);
      expect(JSON.stringify(res.body)).not.toContain('EAAPleaked');
    } finally {
      accountsAnswer = undefined;
    }
  });

  it('a list past 1,000, no list, or not JSON: 502, and nothing changes', async () => {
    const { d, id } = await connected();
    const huge = Array.from({ length: 5000 }, (_, i) => ({ id: String(2e14 + i), name: `P${i}` }));
    for (const answer of [
      json(200, { data: huge }),
      json(200, { pages: [] }),
      { status: 200, body: 'not json' } as Answer,
    ]) {
      accountsAnswer = answer;
      try {
        const res = await d.send('GET', `/accounts/${id}/pages`);
        expect(res.status).toBe(502);
        expect(res.body.code).toBe('platform_unavailable');
        const put = await d.send('PUT', `/accounts/${id}/page`, { page_id: '101000000000002' });
        expect(put.status).toBe(502);
      } finally {
        accountsAnswer = undefined;
      }
    }
    expect((await credentialsOf(id)).page_id).toBe('101000000000001');
  });
});

describe('choosing the Page (PUT /app/api/accounts/{id}/page)', () => {
  it("stores the Page's token sealed with its page_id and name, in the same connection", async () => {
    const { d, id, userToken } = await connected();
    const before = await credentialsOf(id);
    const res = await d.send('PUT', `/accounts/${id}/page`, { page_id: '101000000000002' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id,
      platform: 'facebook',
      handle: 'Brand Shop',
      page_id: '101000000000002',
    });
    const row = await rowOf(id);
    expect(row.handle).toBe('Brand Shop');
    expect(row.status).toBe('active');
    const after = await credentialsOf(id);
    expect(after.page_id).toBe('101000000000002');
    expect(after.refresh_token).toBe(userToken);
    expect(after.access_token).not.toBe(before.access_token);
    // The new token is the second Page's, and is sealed: not in the row's bytes in clear.
    expect(meta.tokens.get(after.access_token as string)?.user).toBe('brand|101000000000002');
    expect(row.credentials.includes(Buffer.from(after.access_token as string))).toBe(false);
    expectNoToken(JSON.stringify(res.body));
    // The list says so, and the Accounts page's handle too.
    expect((await d.send('GET', `/accounts/${id}/pages`)).body.page_id).toBe('101000000000002');
    const accounts = await d.send('GET', '/accounts');
    expect(accounts.body).toEqual([expect.objectContaining({ id, handle: 'Brand Shop' })]);
    // Changed back later, still the same connection.
    const back = await d.send('PUT', `/accounts/${id}/page`, { page_id: '101000000000001' });
    expect(back.body).toMatchObject({ id, handle: 'Brand Studio' });
    // No token of the user or of a Page, nor the app's secret, was logged on the way.
    const log = logged.join('\n');
    expect(log).toContain(`/app/api/accounts/${id}/page`);
    expectNoToken(log);
    expect(log).not.toContain(META_APP.secret);
  });

  it('a Page the user does not manage: 404 with a clear message, nothing changed', async () => {
    const { d, id } = await connected();
    const before = (await rowOf(id)).credentials;
    const res = await d.send('PUT', `/accounts/${id}/page`, { page_id: '555000000000009' });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/Page 555000000000009 is not one this Facebook user manages/);
    expect((await rowOf(id)).credentials).toEqual(before);
  });

  it('a page_id that is not a numeric id, or a key beside it: 422', async () => {
    const { d, id } = await connected();
    for (const body of [{ page_id: 'abc' }, { page_id: '1', extra: true }, {}, { page_id: 5 }])
      expect((await d.send('PUT', `/accounts/${id}/page`, body)).status).toBe(422);
  });
});
