// Threads', Instagram's and Facebook's OAuthApps against stand-ins of Meta's hosts on loopback
// (test/support/platforms/metaOauth.ts): the authorize page's parameters, the code traded
// for a long-lived token (Facebook: for the Page's token), the long-lived token extended,
// a dead one asking for a reconnect, and the identity call naming the ids publishing needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicationError } from '../../../core/connectors/connector.ts';
import { facebookOAuthApp } from '../../../core/connectors/oauth/facebook.ts';
import { OAUTH_APPS } from '../../../core/connectors/oauth/index.ts';
import { instagramOAuthApp } from '../../../core/connectors/oauth/instagram.ts';
import { threadsOAuthApp } from '../../../core/connectors/oauth/threads.ts';
import type { OAuthApp, OAuthContext } from '../../../core/connectors/oauthApp.ts';
import { failure, inDays } from '../../support/platforms/failure.ts';
import { META_APP, type MetaStandIn, startMetaOauth } from '../../support/platforms/metaOauth.ts';
import { oauthContext } from '../../support/platforms/standIn.ts';

const REDIRECT = 'https://sps.example/connect/meta/callback';

describe.each([
  [
    'threads',
    threadsOAuthApp,
    'th',
    '/v1.0/me',
    'threads_basic,threads_content_publish,threads_manage_insights,threads_read_replies',
  ],
  [
    'instagram',
    instagramOAuthApp,
    'ig',
    '/v25.0/me',
    'instagram_business_basic,instagram_business_content_publish,instagram_business_manage_insights',
  ],
] as const)(
  '%s: short-lived token, then the 60-day one, extended',
  (platform, app, prefix, mePath, scope) => {
    let meta: MetaStandIn;
    let ctx: OAuthContext;
    beforeAll(async () => {
      meta = await startMetaOauth(platform, REDIRECT);
      ctx = oauthContext(platform, meta.url, META_APP);
    });
    afterAll(() => meta.close());

    it('is the registered app of its platform', () => {
      expect(OAUTH_APPS[platform]).toBe(app);
      expect(app.pkce).toBe(false);
    });

    it('the authorize page gets the app id, the callback, the scopes and the state', () => {
      const url = new URL(app.authorizeUrl(ctx.app, { state: 's-1', redirectUri: REDIRECT }));
      expect(`${url.origin}${url.pathname}`).toBe(`${meta.url}/authorize`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        client_id: META_APP.id,
        redirect_uri: REDIRECT,
        scope,
        response_type: 'code',
        state: 's-1',
      });
    });

    it('a code becomes a long-lived token (the short-lived one exchanged at once)', async () => {
      meta.received.length = 0;
      const tokens = await app.exchangeCode(ctx, { code: meta.issueCode(), redirectUri: REDIRECT });
      expect(meta.tokens.get(tokens.access_token)?.kind).toBe('long');
      expect(inDays(tokens.expires_at)).toBeGreaterThan(59);
      expect(tokens.refresh_token).toBeUndefined();
      const [code, exchange] = meta.received;
      expect(code).toMatchObject({ method: 'POST', path: '/oauth/access_token' });
      expect(code!.form).toMatchObject({
        client_id: META_APP.id,
        client_secret: META_APP.secret,
        grant_type: 'authorization_code',
        redirect_uri: REDIRECT,
      });
      expect(exchange).toMatchObject({ method: 'GET', path: '/access_token' });
      expect(exchange!.query).toMatchObject({
        grant_type: `${prefix}_exchange_token`,
        client_secret: META_APP.secret,
      });
    });

    it("a code used twice is refused with Meta's reason, not as a reconnect, and no secret shown", async () => {
      const code = meta.issueCode();
      await app.exchangeCode(ctx, { code, redirectUri: REDIRECT });
      const err = await failure(app.exchangeCode(ctx, { code, redirectUri: REDIRECT }));
      expect(err).toBeInstanceOf(PublicationError);
      expect(err.message).toMatch(/answered 400: Invalid verification code format/);
      expect(err).toMatchObject({ retryable: false, reconnect: false });
      expect(err.message).not.toContain(META_APP.secret);
      expect(err.message).not.toContain(code);
    });

    it("without the operator's app, the exchange names the variables to set", async () => {
      const bare = oauthContext(platform, meta.url);
      const err = await failure(app.exchangeCode(bare, { code: 'x', redirectUri: REDIRECT }));
      const p = platform.toUpperCase();
      expect(err.message).toContain(`set ${p}_CLIENT_ID and ${p}_CLIENT_SECRET`);
    });

    it('a long-lived token a day old is extended 60 days', async () => {
      const old = meta.longLived('brand', 2 * 86_400);
      const next = await app.refresh(ctx, { access_token: old });
      expect(next.access_token).not.toBe(old);
      expect(meta.tokens.get(next.access_token)?.kind).toBe('long');
      expect(inDays(next.expires_at)).toBeGreaterThan(59);
      expect(meta.received.at(-1)!.query).toEqual({
        grant_type: `${prefix}_refresh_token`,
        access_token: old,
      });
    });

    it('a token under a day old is kept as it is: Meta would refuse to extend it', async () => {
      const young = await app.exchangeCode(ctx, { code: meta.issueCode(), redirectUri: REDIRECT });
      const requests = meta.received.length;
      expect(await app.refresh(ctx, young)).toEqual(young);
      expect(meta.received.length).toBe(requests);
    });

    it('an expired or revoked token asks for a reconnect, without the token in the message', async () => {
      const expired = meta.longLived('brand', 61 * 86_400);
      const err = await failure(app.refresh(ctx, { access_token: expired }));
      expect(err).toMatchObject({ reconnect: true, retryable: false });
      expect(err.message).toMatch(/Invalid OAuth access token/);
      expect(err.message).not.toContain(expired);
      const revoked = meta.longLived('other', 2 * 86_400);
      meta.revoke('other');
      expect(await failure(app.refresh(ctx, { access_token: revoked }))).toMatchObject({
        reconnect: true,
      });
    });

    it('a 5xx during the refresh is retried later, not a reconnect', async () => {
      meta.answerNext('GET /refresh_access_token', {
        status: 503,
        raw: '{"error":{"message":"Service temporarily unavailable","code":2}}',
        headers: { 'retry-after': '30' },
      });
      const err = await failure(
        app.refresh(ctx, { access_token: meta.longLived('brand', 86_400 * 2) }),
      );
      expect(err).toMatchObject({ retryable: true, reconnect: false, retryAfterMs: 30_000 });
    });

    it('the identity call names the account and the user id publishing needs', async () => {
      const token = meta.longLived();
      const identity = await app.identify(ctx, { access_token: token });
      expect(identity).toEqual({
        handle: '@brand.studio',
        fields: { user_id: '17841400000000001' },
      });
      expect(meta.received.at(-1)).toMatchObject({ method: 'GET', path: mePath });
    });

    it('a token of another account than the user_id given is refused', async () => {
      const err = await failure(
        app.identify(ctx, { access_token: meta.longLived('other'), user_id: '17841400000000001' }),
      );
      expect(err.message).toMatch(
        /acts as user_id 17841400000000002, not the user_id 17841400000000001/,
      );
    });
  },
);

describe('instagram: the code as Instagram redirects with it', () => {
  it('a trailing #_ is taken off the code before the exchange', async () => {
    const meta = await startMetaOauth('instagram', REDIRECT);
    try {
      const ctx = oauthContext('instagram', meta.url, META_APP);
      const code = meta.issueCode();
      const tokens = await instagramOAuthApp.exchangeCode(ctx, {
        code: `${code}#_`,
        redirectUri: REDIRECT,
      });
      expect(meta.tokens.get(tokens.access_token)?.kind).toBe('long');
      expect(meta.received[0]!.form.code).toBe(code);
    } finally {
      await meta.close();
    }
  });

  it('the older flat answer to the code exchange is read too', async () => {
    const meta = await startMetaOauth('instagram', REDIRECT);
    try {
      const ctx = oauthContext('instagram', meta.url, META_APP);
      const short = meta.tokens.size;
      // A short-lived token the stand-in knows, answered the way the older reference shows.
      const code = meta.issueCode();
      meta.answerNext('POST /oauth/access_token', {
        status: 200,
        body: { access_token: 'IGQSflat', user_id: 17841400000000 },
      });
      meta.tokens.set('IGQSflat', {
        user: 'brand',
        kind: 'short',
        issued: Date.now(),
        expires: Date.now() + 3_600_000,
      });
      const tokens = await instagramOAuthApp.exchangeCode(ctx, { code, redirectUri: REDIRECT });
      expect(meta.tokens.size).toBe(short + 2);
      expect(meta.tokens.get(tokens.access_token)?.kind).toBe('long');
    } finally {
      await meta.close();
    }
  });
});

describe('facebook: the Page token, from a long-lived user token', () => {
  let meta: MetaStandIn;
  let ctx: OAuthContext;
  const app: OAuthApp = facebookOAuthApp;
  beforeAll(async () => {
    meta = await startMetaOauth('facebook', REDIRECT);
    ctx = oauthContext('facebook', meta.url, META_APP);
  });
  afterAll(() => meta.close());

  it('the dialog gets the app id, the callback, the Page scopes and the state', () => {
    expect(OAUTH_APPS.facebook).toBe(app);
    const url = new URL(app.authorizeUrl(ctx.app, { state: 's-2', redirectUri: REDIRECT }));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: META_APP.id,
      redirect_uri: REDIRECT,
      state: 's-2',
      response_type: 'code',
      scope: 'pages_show_list,pages_manage_posts,pages_read_engagement,read_insights,publish_video',
    });
  });

  it("a code becomes the first Page's token, the long-lived user token kept to renew it", async () => {
    meta.received.length = 0;
    const tokens = await app.exchangeCode(ctx, { code: meta.issueCode(), redirectUri: REDIRECT });
    expect(meta.tokens.get(tokens.access_token)).toMatchObject({
      kind: 'page',
      user: 'brand|101000000000001',
    });
    expect(tokens.expires_at).toBeUndefined();
    expect(meta.tokens.get(tokens.refresh_token!)?.kind).toBe('long');
    expect(inDays(tokens.refresh_expires_at)).toBeGreaterThan(59);
    expect(tokens).toMatchObject({ page_id: '101000000000001' });
    expect(meta.received.map((r) => `${r.method} ${r.path} ${r.query.grant_type ?? ''}`)).toEqual([
      'GET /v25.0/oauth/access_token ',
      'GET /v25.0/oauth/access_token fb_exchange_token',
      'GET /v25.0/me/accounts ',
    ]);
  });

  it('the Page named by page_id is the one whose token is kept', async () => {
    const flow = { code: meta.issueCode(), redirectUri: REDIRECT, pageId: '101000000000002' };
    const tokens = await app.exchangeCode(ctx, flow);
    expect(meta.tokens.get(tokens.access_token)?.user).toBe('brand|101000000000002');
  });

  it('a user who manages no Page is told so', async () => {
    const err = await failure(
      app.exchangeCode(ctx, { code: meta.issueCode('other'), redirectUri: REDIRECT }),
    );
    expect(err.message).toMatch(/lists no Page this user manages/);
  });

  it('the identity call names the Page and its id', async () => {
    const tokens = await app.exchangeCode(ctx, { code: meta.issueCode(), redirectUri: REDIRECT });
    expect(await app.identify(ctx, { ...tokens })).toEqual({
      handle: 'Brand Studio',
      fields: { page_id: '101000000000001' },
    });
  });

  it('a user token given with a page_id is refused: it would not post as the Page', async () => {
    const err = await failure(
      app.identify(ctx, { access_token: meta.longLived('brand'), page_id: '101000000000001' }),
    );
    expect(err.message).toMatch(
      /acts as page_id 17841400000000001, not the page_id 101000000000001/,
    );
  });

  it("a refresh fetches the stored Page's token again with the user token", async () => {
    const tokens = await app.exchangeCode(ctx, {
      code: meta.issueCode(),
      redirectUri: REDIRECT,
      pageId: '101000000000002',
    } as never);
    const next = await app.refresh(ctx, tokens);
    expect(next.access_token).not.toBe(tokens.access_token);
    expect(meta.tokens.get(next.access_token)?.user).toBe('brand|101000000000002');
    expect(next.refresh_token).toBe(tokens.refresh_token);
    expect(meta.received.at(-1)!.path).toBe('/v25.0/101000000000002');
  });

  it('a refresh once the user revoked the app asks for a reconnect', async () => {
    const tokens = await app.exchangeCode(ctx, { code: meta.issueCode(), redirectUri: REDIRECT });
    meta.revoke('brand');
    const err = await failure(app.refresh(ctx, tokens));
    expect(err).toMatchObject({ reconnect: true, retryable: false });
    expect(err.message).not.toContain(tokens.refresh_token!);
  });

  it('once the long-lived user token has expired, a refresh asks for a reconnect unsent', async () => {
    const requests = meta.received.length;
    const err = await failure(
      app.refresh(ctx, {
        access_token: 'EAAPold',
        refresh_token: meta.longLived(),
        refresh_expires_at: new Date(Date.now() - 1000).toISOString(),
      }),
    );
    expect(err).toMatchObject({ reconnect: true });
    expect(err.message).toMatch(/long-lived user token that renews the Page token expired/);
    expect(meta.received.length).toBe(requests);
  });

  it('a Page token given by hand (no user token) asks for a reconnect when refused', async () => {
    const err = await failure(app.refresh(ctx, { access_token: 'EAAPbyhand' }));
    expect(err).toMatchObject({ reconnect: true });
    expect(err.message).toMatch(/reconnect the account/);
  });
});
