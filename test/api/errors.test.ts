// Every failure answers in CONTRACT.md's shape: a JSON body with `detail`.
import { describe, expect, it } from 'vitest';
import { call, makeAccount } from '../support/server.ts';
import { useServer } from '../support/service.ts';

const server = useServer({
  extend: async (app) => {
    app.get('/boom', { schema: { hide: true } }, async () => {
      throw new Error('database password is hunter2');
    });
  },
});

describe('error shapes', () => {
  it('an unknown route is a 404 JSON body', async () => {
    const res = await call(server, 'GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual({ detail: 'No route GET /v1/nothing-here.', code: 'route_not_found' });
  });

  it('malformed JSON is a 400 with detail', async () => {
    const res = await call(server, 'POST', '/auth/login', {
      raw: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_json', detail: expect.any(String) });
  });

  it('a wrong content type is a 415 with detail', async () => {
    const res = await call(server, 'POST', '/auth/login', {
      raw: 'email=a&password=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });

  it('an oversized body is a 413 with detail', async () => {
    const res = await call(server, 'POST', '/auth/login', {
      body: { email: 'a@example.com', password: 'x'.repeat(1_100_000) },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      code: 'body_too_large',
      detail: 'The body is larger than this route accepts (at most 1 MB).',
    });
  });

  it('a validation failure is a 422 whose detail lists loc, msg and type', async () => {
    const res = await call(server, 'POST', '/auth/login', { body: { password: 'x', extra: 1 } });
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs).toContain('body.email');
    for (const issue of res.body.detail) {
      expect(issue).toEqual({
        loc: expect.any(Array),
        msg: expect.any(String),
        type: expect.any(String),
      });
    }
  });

  it('a 5xx hides the internal message', async () => {
    const res = await call(server, 'GET', '/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal server error.', code: 'internal_error' });
  });

  it('validation refuses unknown members and leaves data unchanged', async () => {
    const acct = await makeAccount(server.pool);
    const before = await server.pool.query('select count(*)::int as n from sessions');
    const res = await call(server, 'POST', '/auth/login', {
      body: { email: acct.email, password: acct.password, remember: true },
    });
    expect(res.status).toBe(422);
    const after = await server.pool.query('select count(*)::int as n from sessions');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});
