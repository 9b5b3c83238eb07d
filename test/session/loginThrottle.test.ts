// Login failures from one address are slowed even when they spread over many accounts.
// (Its own file: the address of every test request is 127.0.0.1.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeAccount, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe('login throttling per address', () => {
  it('after 20 failures from one address, a correct login from it waits too', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await call(server, 'POST', '/auth/login', {
        body: { email: `guess${i}@example.com`, password: 'guess' },
      });
      expect(res.status).toBe(401);
    }
    const acct = await makeAccount(server.pool);
    const res = await call(server, 'POST', '/auth/login', {
      body: { email: acct.email, password: acct.password },
    });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('login_throttled');
  });
});
