// Login throttling (core/sessions/loginThrottle.ts): strict per e-mail, even against a burst of
// parallel attempts; per address it counts the distinct e-mails failing from it, so one
// attacked account does not lock out everyone behind the same address; TRUST_PROXY decides
// whether X-Forwarded-For names that address. (Every test request comes from 127.0.0.1, so
// each rule gets its own server and database.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admitLoginAttempt,
  delayFor,
  FREE,
  throttledAddress,
} from '../../core/sessions/loginThrottle.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { call, makeAccount, startServer } from '../support/server.ts';
import { type TestServer, useServer } from '../support/service.ts';

const attempt = (
  server: TestServer,
  email: string,
  password: string,
  headers: Record<string, string> = {},
) => call(server, 'POST', '/auth/login', { body: { email, password }, headers });

/** Fails from `headers`' address for `count` distinct unknown e-mails: credential stuffing. */
async function stuff(server: TestServer, count: number, headers: Record<string, string> = {}) {
  for (let i = 0; i < count; i++) {
    const res = await attempt(server, `guess${i}@example.com`, 'guess', headers);
    expect(res.status).toBe(401);
  }
}

describe('per e-mail, against a burst of parallel attempts', () => {
  const server = useServer();

  it('30 parallel wrong passwords get at most 5 password checks; the rest are 429', async () => {
    const victim = await makeAccount(server.pool);
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => attempt(server, victim.email, `wrong ${i}`)),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    for (const r of replies.filter((r) => r.status === 429)) {
      expect(r.body.code).toBe('login_throttled');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // The victim's own correct password waits as well: the e-mail is what is throttled.
    expect((await attempt(server, victim.email, victim.password)).status).toBe(429);

    // Another account behind the same address is not locked out by the attack.
    const neighbour = await makeAccount(server.pool);
    expect((await attempt(server, neighbour.email, neighbour.password)).status).toBe(200);
  });

  it('a successful sign-in clears its e-mail: the next mistakes start from zero', async () => {
    const acct = await makeAccount(server.pool);
    for (let i = 0; i < 4; i++)
      expect((await attempt(server, acct.email, `wrong ${i}`)).status).toBe(401);
    expect((await attempt(server, acct.email, acct.password)).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await attempt(server, acct.email, `again ${i}`)).status).toBe(401);
    expect((await attempt(server, acct.email, acct.password)).status).toBe(429);
  });
});

describe('per address: distinct e-mails failing from it', () => {
  const server = useServer();

  it('after 20 e-mails failed from one address, a new e-mail from it waits, even correct', async () => {
    const known = await makeAccount(server.pool);
    expect((await attempt(server, known.email, 'typo')).status).toBe(401);
    await stuff(server, 19);
    const acct = await makeAccount(server.pool);
    const res = await attempt(server, acct.email, acct.password);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('login_throttled');
    // An e-mail already tried from the address answers to its own rule only.
    expect((await attempt(server, known.email, known.password)).status).toBe(200);
  });
});

describe('TRUST_PROXY and X-Forwarded-For', () => {
  it('off (the default): X-Forwarded-For does not change the throttled address', async () => {
    const server = await startServer();
    try {
      await stuff(server, 20, { 'x-forwarded-for': '203.0.113.7' });
      const acct = await makeAccount(server.pool);
      const res = await attempt(server, acct.email, acct.password, {
        'x-forwarded-for': '203.0.113.8',
      });
      expect(res.status).toBe(429);
    } finally {
      await server.close();
    }
  });

  it('on: the address the proxy appended is the one throttled', async () => {
    const server = await startServer({ env: { TRUST_PROXY: 'true' } });
    try {
      await stuff(server, 20, { 'x-forwarded-for': '203.0.113.7' });
      const [a, b] = [await makeAccount(server.pool), await makeAccount(server.pool)];
      // Another client behind the same proxy is not held back.
      expect(
        (await attempt(server, a.email, a.password, { 'x-forwarded-for': '203.0.113.8' })).status,
      ).toBe(200);
      // The stuffing client, even writing an address of its own before the proxy's entry.
      const spoofed = await attempt(server, b.email, b.password, {
        'x-forwarded-for': '198.51.100.1, 203.0.113.7',
      });
      expect(spoofed.status).toBe(429);
    } finally {
      await server.close();
    }
  });

  it('a number of proxies: the address the outermost one appended is the one throttled', async () => {
    // Two proxies in front (a CDN, then a load balancer): the balancer appends the CDN's address.
    const server = await startServer({ env: { TRUST_PROXY: '2' } });
    try {
      await stuff(server, 20, { 'x-forwarded-for': '203.0.113.7, 10.0.0.2' });
      const [a, b] = [await makeAccount(server.pool), await makeAccount(server.pool)];
      expect(
        (await attempt(server, a.email, a.password, { 'x-forwarded-for': '203.0.113.8, 10.0.0.2' }))
          .status,
      ).toBe(200);
      const spoofed = await attempt(server, b.email, b.password, {
        'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.0.0.2',
      });
      expect(spoofed.status).toBe(429);
    } finally {
      await server.close();
    }
  });
});

describe('the throttled address', () => {
  it('is an IPv4 address as is, a mapped one unwrapped, and an IPv6 one by its /64', () => {
    expect(throttledAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(throttledAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(throttledAddress('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(throttledAddress('2001:db8:1:2::1')).toBe(throttledAddress('2001:db8:1:2:ffff::9'));
  });
});

describe('the per-e-mail backoff', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db.drop());

  it('is 5 free attempts, then 30 s, 60 s, ... doubling, at most 5 minutes', () => {
    const schedule = Array.from({ length: 12 }, (_, n) => delayFor(n, FREE.email));
    expect(schedule).toEqual([0, 0, 0, 0, 0, 30, 60, 120, 240, 300, 300, 300]);
  });

  it('admits exactly as delayFor says, the wait it answers included, for every count', async () => {
    // The statement that admits (core/sessions/db.ts) and the wait a refusal names must agree
    // with delayFor at every count, on both sides of each wait's end.
    for (let n = 0; n <= 12; n++) {
      const delay = delayFor(n, FREE.email);
      for (const age of delay > 0 ? [delay - 5, delay + 5] : [1]) {
        const email = `backoff-${n}-${age}@example.com`;
        await db.pool.query(
          `insert into login_attempts (email, attempts, last_attempt_at)
           values ($1, $2, now() - make_interval(secs => $3))`,
          [email, n, age],
        );
        const admission = await admitLoginAttempt(db.pool, email, `192.0.2.${n}`);
        // The wait named is what is left of the delay (rounded up; a moment has passed).
        const refused = {
          admitted: false,
          waitSeconds: expect.toSatisfy((w: number) => [4, 5].includes(w)),
        };
        expect([n, age, admission]).toEqual([n, age, age >= delay ? { admitted: true } : refused]);
        const { rows } = await db.pool.query(
          'select attempts from login_attempts where email = $1',
          [email],
        );
        expect(rows[0].attempts).toBe(age >= delay ? n + 1 : n);
      }
    }
  });
});
