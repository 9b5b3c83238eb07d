// The dashboard's session routes: sign-up as SIGNUP allows, /app/api/session with
// the CSRF token, the board by status, and approve/reject that need the session, a same-origin
// Origin and the token; a bearer credential is refused as on the other session routes. And the
// pages: index.html at each page address, with a CSP that keeps them to this origin.
import { describe, expect, it } from 'vitest';
import { POST_STATUSES } from '../../core/posts/schema.ts';
import { call, makeKey, signedInDashboard, startServer } from '../support/server.ts';
import { useServer } from '../support/service.ts';
import { solidPng } from '../support/uploads.ts';

const server = useServer();
const ORIGIN = 'http://localhost:3000';

/** A free account signed in to the dashboard (it works on every plan), with its headers. */
const signedIn = () => signedInDashboard(server, 'free');

describe('/app/api', () => {
  it('answers the session with a CSRF token of its own, on every plan; nothing without a session', async () => {
    const a = await signedIn();
    const b = await signedIn();
    expect(a.csrf).toMatch(/^[\w-]{43}$/);
    expect(a.csrf).not.toBe(b.csrf);
    expect((await call(server, 'GET', '/app/api/session')).status).toBe(401);
    const key = await makeKey(server.pool, a.acct.accountId, ['read']);
    const bearer = await call(server, 'GET', '/app/api/board', { key });
    expect(bearer.status).toBe(401);
  });

  it('shows the board by status and approves or rejects only with our Origin and the token', async () => {
    const a = await signedIn();
    const key = await makeKey(server.pool, a.acct.accountId, ['read', 'publish']);
    await server.pool.query(`update accounts set plan = 'plus' where id = $1`, [a.acct.accountId]);
    const made = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'mastodon', body: 'Review me' },
    });
    expect(made.status).toBe(201);
    const board = await call(server, 'GET', '/app/api/board', { headers: { cookie: a.cookie } });
    expect(board.status).toBe(200);
    expect(Object.keys(board.body.columns)).toEqual(
      expect.arrayContaining(['draft', 'approved', 'rejected', 'scheduled', 'published', 'failed']),
    );
    expect(board.body.columns.draft.map((p: any) => p.id)).toEqual([made.body.id]);

    const approve = (headers: Record<string, string>) =>
      call(server, 'POST', `/app/api/posts/${made.body.id}/approve`, {
        headers: { cookie: a.cookie, ...headers },
      });
    // No Origin, a foreign one, no token, another session's token: refused, nothing changes.
    const other = await signedIn();
    const attempts: Record<string, string>[] = [
      { 'x-csrf-token': a.csrf },
      { origin: 'https://evil.example', 'x-csrf-token': a.csrf },
      { origin: ORIGIN },
      { origin: ORIGIN, 'x-csrf-token': other.csrf },
    ];
    for (const headers of attempts) {
      const refused = await approve(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
    }
    const after = await call(server, 'GET', '/app/api/board', { headers: { cookie: a.cookie } });
    expect(after.body.columns.draft).toHaveLength(1);

    const ok = await approve({ origin: ORIGIN, 'x-csrf-token': a.csrf });
    expect([ok.status, ok.body.status]).toEqual([200, 'approved']);
    const rejected = await call(server, 'POST', `/app/api/posts/${made.body.id}/reject`, {
      headers: { cookie: a.cookie, origin: ORIGIN, 'x-csrf-token': a.csrf },
      body: { reason: 'Off brand' },
    });
    expect([rejected.status, rejected.body.rejection]).toEqual([
      200,
      { reason: 'Off brand', code: null },
    ]);
    // Another account's post is not found.
    const foreign = await call(server, 'POST', `/app/api/posts/${made.body.id}/approve`, {
      headers: { cookie: other.cookie, origin: ORIGIN, 'x-csrf-token': other.csrf },
    });
    expect(foreign.status).toBe(404);
  });

  it('sends each post with the actions its status allows, on the board and on its page', async () => {
    const a = await signedIn();
    const made = await a.send('POST', '/posts', { platform: 'mastodon', body: 'Act on me' });
    expect(made.status).toBe(201);
    const board = await a.send('GET', '/board');
    // The page shows the columns in the order they come.
    expect(Object.keys(board.body.columns)).toEqual([...POST_STATUSES]);
    expect(board.body.columns.draft.map((p: any) => [p.id, p.actions])).toEqual([
      [made.body.id, ['approve', 'reject', 'schedule', 'update', 'favorite']],
    ]);
    expect((await a.send('POST', `/posts/${made.body.id}/approve`)).status).toBe(200);
    const page = await a.send('GET', `/posts/${made.body.id}`);
    expect(page.body.post.actions).toEqual(['reject', 'schedule', 'update', 'favorite']);
    const after = await a.send('GET', '/board');
    expect(after.body.columns.approved[0].actions).toEqual(page.body.post.actions);
  });

  it('tells the pages the plans, lowest first, and the platforms the composer offers: every one this version publishes to, Instagram (no text posts) included', async () => {
    const a = await signedIn();
    const session = await a.send('GET', '/session');
    expect(session.body.plans).toEqual(['free', 'plus', 'pro', 'business']);
    expect(session.body.platforms).toEqual([
      'bluesky',
      'mastodon',
      'x',
      'linkedin',
      'threads',
      'instagram',
      'facebook',
    ]);
  });
});

describe('/app/api for the composer, the calendar, keys and webhooks', () => {
  it('counts a text each platform its way', async () => {
    const a = await signedIn();
    const measured = await call(server, 'POST', '/app/api/measure', {
      headers: { cookie: a.cookie, origin: ORIGIN, 'x-csrf-token': a.csrf },
      body: { text: 'Rye 🍞 https://bakery.com/a/very/long/path/to/the/bread' },
    });
    expect(measured.status).toBe(200);
    // X weighs a URL 23 and an emoji 2; Bluesky counts graphemes; Mastodon characters.
    expect(measured.body.x).toMatchObject({ length: 4 + 2 + 1 + 23, max: 280 });
    expect(measured.body.bluesky).toMatchObject({ length: 54, max: 300, unit: 'graphemes' });
    expect(measured.body.mastodon).toMatchObject({ length: 54, unit: 'characters' });
    // A long text is counted by its characters for X (twitter-text's parse of some long texts
    // takes seconds); it is far past X's limit either way.
    const long = await call(server, 'POST', '/app/api/measure', {
      headers: { cookie: a.cookie, origin: ORIGIN, 'x-csrf-token': a.csrf },
      body: { text: 'a-b.'.repeat(5000) },
    });
    expect(long.body.x).toMatchObject({ length: 20_000, max: 280 });
  });

  it('answers the calendar of a range, and refuses a range over 42 days', async () => {
    const a = await signedIn();
    const key = await makeKey(server.pool, a.acct.accountId, ['read', 'publish']);
    await server.pool.query(`update accounts set plan = 'plus' where id = $1`, [a.acct.accountId]);
    const when = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const made = await call(server, 'POST', '/v1/posts', {
      key,
      body: { platform: 'mastodon', body: 'Later', schedule_at: when },
    });
    const range = (from: number, to: number) =>
      call(
        server,
        'GET',
        `/app/api/calendar?from=${new Date(Date.now() + from * 86_400_000).toISOString()}&to=${new Date(Date.now() + to * 86_400_000).toISOString()}`,
        { headers: { cookie: a.cookie } },
      );
    const week = await range(0, 7);
    expect(week.body.posts.map((p: any) => p.id)).toEqual([made.body.id]);
    expect((await range(3, 7)).body.posts).toEqual([]);
    const long = await range(0, 43);
    expect([long.status, long.body.detail[0].msg]).toEqual([422, 'a range of at most 42 days']);
    // A year Postgres cannot hold is refused before it is asked; an offset it would refuse is
    // read in UTC first.
    const at = (from: string, to: string) =>
      call(
        server,
        'GET',
        `/app/api/calendar?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
        { headers: { cookie: a.cookie } },
      );
    expect((await at('0000-01-01T00:00:00Z', '0000-01-05T00:00:00Z')).status).toBe(422);
    const offset = await at('2026-11-01T00:00:00+23:59', '2026-11-05T00:00:00+23:59');
    expect([offset.status, offset.body.posts]).toEqual([200, []]);
  });

  it('serves the key and webhook routes again under /app/api, with the CSRF token', async () => {
    const a = await signedIn();
    const body = { name: 'from the page', scopes: ['read'] };
    const noToken = await call(server, 'POST', '/app/api/apikeys', {
      headers: { cookie: a.cookie, origin: ORIGIN },
      body,
    });
    expect([noToken.status, noToken.body.code]).toEqual([403, 'csrf_required']);
    // Where the token comes from, for a client other than the dashboard's page.
    expect(noToken.body.detail).toBe(
      "The X-CSRF-Token header is missing or stale: send the csrf_token that GET /app/api/session answers for this session (the dashboard's page reloads it).",
    );
    const made = await call(server, 'POST', '/app/api/apikeys', {
      headers: { cookie: a.cookie, origin: ORIGIN, 'x-csrf-token': a.csrf },
      body,
    });
    expect(made.status).toBe(201);
    const listed = await call(server, 'GET', '/app/api/apikeys', { headers: { cookie: a.cookie } });
    expect(listed.body.map((k: any) => k.name)).toEqual(['from the page']);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.key);
    const noSession = await call(server, 'DELETE', `/app/api/apikeys/${made.body.id}`, {
      headers: { origin: ORIGIN, 'x-csrf-token': a.csrf },
    });
    expect(noSession.status).toBe(401);
    const hooks = await call(server, 'GET', '/app/api/webhooks', { headers: { cookie: a.cookie } });
    expect([hooks.status, hooks.body]).toEqual([200, []]);
  });
});

describe('/app/api: compose, a post page, the brand, connected accounts', () => {
  it('composes for several platforms or none: one platform refusing stops all', async () => {
    const a = await signedIn();
    const long = await call(server, 'POST', '/app/api/compose', {
      headers: a.headers,
      body: { platforms: ['mastodon', 'x'], body: 'y'.repeat(300) },
    });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].msg).toMatch(/x allows 280/);
    const none = await call(server, 'GET', '/app/api/board', { headers: { cookie: a.cookie } });
    expect(none.body.columns.draft).toEqual([]);
    const made = await call(server, 'POST', '/app/api/compose', {
      headers: a.headers,
      body: { platforms: ['mastodon', 'bluesky'], body: 'Both', when: 'next_free_slot' },
    });
    expect(made.status).toBe(201);
    expect(made.body.posts.map((p: any) => [p.platform, p.status])).toEqual([
      ['mastodon', 'scheduled'],
      ['bluesky', 'scheduled'],
    ]);
    const detail = await call(server, 'GET', `/app/api/posts/${made.body.posts[0].id}`, {
      headers: { cookie: a.cookie },
    });
    expect(detail.body.post.id).toBe(made.body.posts[0].id);
    expect(detail.body.audit.map((e: any) => e.action)).toEqual(['schedule', 'create']);
    const other = await signedIn();
    const foreign = await call(server, 'GET', `/app/api/posts/${made.body.posts[0].id}`, {
      headers: { cookie: other.cookie },
    });
    expect(foreign.status).toBe(404);
  });

  it("attaches library media to every composed post; another account's media is not found", async () => {
    const a = await signedIn();
    const png = await solidPng({ width: 64, height: 64 }, '#aa3311');
    const uploaded = await fetch(`${server.baseUrl}/app/api/assets/upload?filename=a.png`, {
      method: 'POST',
      headers: { ...a.headers, 'content-type': 'image/png' },
      body: new Uint8Array(png),
    });
    const asset = (await uploaded.json()) as { id: string };
    const made = await call(server, 'POST', '/app/api/compose', {
      headers: a.headers,
      body: { platforms: ['mastodon', 'bluesky'], body: 'With a picture', asset_ids: [asset.id] },
    });
    expect(made.status).toBe(201);
    expect(made.body.posts.map((p: any) => [p.kind, p.asset_ids])).toEqual([
      ['image', [asset.id]],
      ['image', [asset.id]],
    ]);
    // Another account's asset is not found, and nothing is made.
    const other = await signedIn();
    const foreign = await call(server, 'POST', '/app/api/compose', {
      headers: other.headers,
      body: { platforms: ['mastodon'], body: 'Borrowed', asset_ids: [asset.id] },
    });
    expect(foreign.status).toBe(404);
    const board = await call(server, 'GET', '/app/api/board', {
      headers: { cookie: other.cookie },
    });
    expect(board.body.columns.draft).toEqual([]);
  });

  it('marks a post as a favorite and clears it, with the token', async () => {
    const a = await signedIn();
    const made = await call(server, 'POST', '/app/api/compose', {
      headers: a.headers,
      body: { platforms: ['mastodon'], body: 'Star me' },
    });
    const id = made.body.posts[0].id;
    const refused = await call(server, 'POST', `/app/api/posts/${id}/favorite`, {
      headers: { cookie: a.cookie, origin: ORIGIN },
    });
    expect(refused.status).toBe(403);
    const starred = await call(server, 'POST', `/app/api/posts/${id}/favorite`, {
      headers: a.headers,
    });
    expect([starred.status, typeof starred.body.favorited_at]).toEqual([200, 'string']);
    const cleared = await call(server, 'DELETE', `/app/api/posts/${id}/favorite`, {
      headers: a.headers,
    });
    expect([cleared.status, cleared.body.favorited_at]).toEqual([200, null]);
  });

  it('selects a brand, lists its accounts, and connects only what the platform accepts', async () => {
    const a = await signedIn();
    const second = await server.pool.query(
      `insert into brands (account_id, name) values ($1, 'Second') returning id::text`,
      [a.acct.accountId],
    );
    const picked = await call(server, 'PUT', '/app/api/session/brand', {
      headers: a.headers,
      body: { brand_id: second.rows[0].id },
    });
    expect(picked.body.selected_brand_id).toBe(second.rows[0].id);
    const accounts = await call(server, 'GET', '/app/api/accounts', {
      headers: { cookie: a.cookie },
    });
    expect([accounts.status, accounts.body]).toEqual([200, []]);
    // The outbound guard refuses loopback here: nothing is stored.
    const refused = await call(server, 'POST', '/app/api/accounts', {
      headers: a.headers,
      body: {
        platform: 'mastodon',
        config: { instance: 'http://127.0.0.1:9', access_token: 'secret-token' },
      },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(JSON.stringify(refused.body)).not.toContain('secret-token');
    const after = await call(server, 'GET', '/app/api/accounts', { headers: { cookie: a.cookie } });
    expect(after.body).toEqual([]);
  });
});

describe('sign-up', () => {
  it('first: only while no account exists, once even when two arrive together', async () => {
    const fresh = await startServer({ env: { SIGNUP: 'first' } });
    try {
      expect((await call(fresh, 'GET', '/app/api/signup')).body).toEqual({ allowed: true });
      const body = (n: number) => ({ email: `first${n}@example.com`, password: 'a long password' });
      const both = await Promise.all(
        [1, 2].map((n) => call(fresh, 'POST', '/auth/signup', { body: body(n) })),
      );
      expect(both.map((r) => r.status).sort()).toEqual([201, 403]);
      const made = both.find((r) => r.status === 201)!;
      expect(made.body.account.plan).toBe('free');
      expect(made.headers.get('set-cookie')).toMatch(/sps_session=.*HttpOnly.*SameSite=Lax/i);
      const closed = both.find((r) => r.status === 403)!.body;
      expect(closed.code).toBe('signup_closed');
      // Often read by the operator who made an account with the CLI: what to do now.
      expect(closed.detail).toBe(
        'Sign-up is for the first account only (SIGNUP=first), and an account exists already: ' +
          'an existing account signs in instead (POST /auth/login, or Sign in on the dashboard at /). ' +
          'The operator opens sign-up to everyone by starting the service with SIGNUP=open, or ' +
          'creates an account with npm run admin -- account create.',
      );
      expect((await call(fresh, 'GET', '/app/api/signup')).body).toEqual({ allowed: false });
    } finally {
      await fresh.close();
    }
  });

  it('open takes anyone with a valid e-mail and password; closed takes nobody', async () => {
    const open = await startServer({ env: { SIGNUP: 'open' } });
    const closed = await startServer({ env: { SIGNUP: 'closed' } });
    try {
      const bad = await call(open, 'POST', '/auth/signup', {
        body: { email: 'not-an-email', password: 'short' },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.detail.map((d: any) => d.loc.at(-1)).sort()).toEqual(['email', 'password']);
      const body = { email: 'open@example.com', password: 'a long password' };
      expect((await call(open, 'POST', '/auth/signup', { body })).status).toBe(201);
      const again = await call(open, 'POST', '/auth/signup', { body });
      expect([again.status, again.body.code]).toEqual([409, 'email_taken']);
      const refused = await call(closed, 'POST', '/auth/signup', { body });
      expect([refused.status, refused.body.code]).toEqual([403, 'signup_closed']);
      expect(refused.body.detail).toMatch(
        /^Sign-up is closed here \(SIGNUP=closed\): an existing account signs in instead .* SIGNUP=open/,
      );
      expect((await call(closed, 'GET', '/app/api/signup')).body).toEqual({ allowed: false });
    } finally {
      await open.close();
      await closed.close();
    }
  });
});

describe('sign-up under the sign-in throttle', () => {
  it('lets one address try 20 e-mails, then makes the next wait (429 with Retry-After)', async () => {
    const open = await startServer({ env: { SIGNUP: 'open' } });
    try {
      // Probing e-mails for 409 counts like creating accounts.
      for (let i = 0; i < 20; i++) {
        const res = await call(open, 'POST', '/auth/signup', {
          body: { email: `many${i}@example.com`, password: 'a long password' },
        });
        expect(res.status).toBe(201);
      }
      const next = await call(open, 'POST', '/auth/signup', {
        body: { email: 'many20@example.com', password: 'a long password' },
      });
      expect([next.status, next.body.code]).toEqual([429, 'login_throttled']);
      expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(0);
      const made = await open.pool.query(
        `select count(*)::int as n from accounts where email = 'many20@example.com'`,
      );
      expect(made.rows[0].n).toBe(0);
    } finally {
      await open.close();
    }
  });
});

describe('the pages', () => {
  it('serve index.html at each page address with a same-origin CSP, or say how to build it', async () => {
    for (const page of ['/', '/sign-in', '/sign-up', '/board']) {
      const res = await fetch(`${server.baseUrl}${page}`);
      const text = await res.text();
      if (res.status === 503) {
        expect(text).toMatch(/npm run build:web/);
        continue;
      }
      expect(res.status, page).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toMatch(
        /default-src 'self'.*frame-ancestors 'none'/,
      );
      expect(text).toMatch(/<div id="root">/);
    }
  });
});
