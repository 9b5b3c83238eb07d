// Login throttling (core/sessions/loginThrottle.ts). What is throttled is the subject the
// account lookup finds (the account, or an unknown e-mail as Postgres lowers it: tested on a
// UTF-8 collation, where it lowers beyond ASCII). Per subject and client it is strict, even
// against a burst of parallel attempts, and holds back that client only: another address, or
// a browser holding the account's session, still signs in. Wrong passwords from many
// addresses hold later attempts on the account a growing while, never refuse them. Per
// address it counts the distinct subjects failing from it; TRUST_PROXY decides whether
// X-Forwarded-For names that address. Other client addresses are other loopback addresses
// (127.0.0.2, ...: test/support/fromAddress.ts).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../core/accounts/service.ts';
import type { DomainError } from '../../core/kernel/errors.ts';
import {
  admitLoginAttempt,
  delayFor,
  FREE,
  holdFor,
  throttledAddress,
} from '../../core/sessions/loginThrottle.ts';
import { signIn } from '../../core/sessions/service.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { callFrom } from '../support/fromAddress.ts';
import { call, makeAccount, startServer } from '../support/server.ts';
import { type TestServer, useServer } from '../support/service.ts';
import { utf8Database } from '../support/utf8Database.ts';

const attempt = (
  server: TestServer,
  email: string,
  password: string,
  headers: Record<string, string> = {},
) => call(server, 'POST', '/auth/login', { body: { email, password }, headers });

/** A sign-in from another client address (a loopback one), with `headers` (a cookie). */
const attemptFrom = (
  address: string,
  server: TestServer,
  email: string,
  password: string,
  headers: Record<string, string> = {},
) => callFrom(address, server, 'POST', '/auth/login', { body: { email, password }, headers });

/** Fails from `headers`' address for `count` distinct unknown e-mails: credential stuffing. */
async function stuff(server: TestServer, count: number, headers: Record<string, string> = {}) {
  for (let i = 0; i < count; i++) {
    const res = await attempt(server, `guess${i}@example.com`, 'guess', headers);
    expect(res.status).toBe(401);
  }
}

describe('per subject and client, against a burst of parallel attempts', () => {
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
    // The correct password from that address waits as well: the pair is what is throttled.
    expect((await attempt(server, victim.email, victim.password)).status).toBe(429);

    // Another account behind the same address is not locked out by the attack.
    const neighbour = await makeAccount(server.pool);
    expect((await attempt(server, neighbour.email, neighbour.password)).status).toBe(200);
  });

  it("a successful sign-in clears its client's count: the next mistakes start from zero", async () => {
    const acct = await makeAccount(server.pool);
    for (let i = 0; i < 4; i++)
      expect((await attempt(server, acct.email, `wrong ${i}`)).status).toBe(401);
    expect((await attempt(server, acct.email, acct.password)).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await attempt(server, acct.email, `again ${i}`)).status).toBe(401);
    expect((await attempt(server, acct.email, acct.password)).status).toBe(429);
  });
});

describe('per address: distinct subjects failing from it', () => {
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

describe('the per-client backoff', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db.drop());

  it('is 5 free attempts, then 30 s, 60 s, ... doubling, at most 5 minutes', () => {
    const schedule = Array.from({ length: 12 }, (_, n) => delayFor(n, FREE.attempts));
    expect(schedule).toEqual([0, 0, 0, 0, 0, 30, 60, 120, 240, 300, 300, 300]);
  });

  it('admits exactly as delayFor says, the wait it answers included, for every count', async () => {
    // The statement that admits (core/sessions/db.ts) and the wait a refusal names must agree
    // with delayFor at every count, on both sides of each wait's end.
    for (let n = 0; n <= 12; n++) {
      const delay = delayFor(n, FREE.attempts);
      for (const age of delay > 0 ? [delay - 5, delay + 5] : [1]) {
        const subject = `email:backoff-${n}-${age}@example.com`;
        const address = `192.0.2.${n}`;
        await db.pool.query(
          `insert into login_client_attempts (subject, client, attempts, last_attempt_at)
           values ($1, $2, $3, now() - make_interval(secs => $4))`,
          [subject, address, n, age],
        );
        const admission = await admitLoginAttempt(db.pool, subject, { address });
        // The wait named is what is left of the delay (rounded up; a moment has passed).
        const refused = {
          admitted: false,
          waitSeconds: expect.toSatisfy((w: number) => [4, 5].includes(w)),
        };
        expect([n, age, admission]).toEqual([n, age, age >= delay ? { admitted: true } : refused]);
        const { rows } = await db.pool.query(
          'select attempts from login_client_attempts where subject = $1 and client = $2',
          [subject, address],
        );
        expect(rows[0].attempts).toBe(age >= delay ? n + 1 : n);
      }
    }
  });
});

describe('what one client does holds back no other', () => {
  const server = useServer();

  it('wrong passwords from one address: the right one from another address signs in', async () => {
    const victim = await makeAccount(server.pool);
    for (let i = 0; i < FREE.attempts; i++)
      expect((await attemptFrom('127.0.0.2', server, victim.email, `wrong ${i}`)).status).toBe(401);
    const stranger = await attemptFrom('127.0.0.2', server, victim.email, victim.password);
    expect([stranger.status, stranger.body.code]).toEqual([429, 'login_throttled']);
    expect((await attemptFrom('127.0.0.3', server, victim.email, victim.password)).status).toBe(
      200,
    );
  });

  it("a browser holding the account's session signs in again from the very address that failed", async () => {
    const victim = await makeAccount(server.pool);
    const signedIn = await attemptFrom('127.0.0.4', server, victim.email, victim.password);
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    // Someone behind the same address (a shared NAT) guesses until refused.
    for (let i = 0; i < FREE.attempts; i++)
      expect((await attemptFrom('127.0.0.4', server, victim.email, `wrong ${i}`)).status).toBe(401);
    expect((await attemptFrom('127.0.0.4', server, victim.email, victim.password)).status).toBe(
      429,
    );
    const again = await attemptFrom('127.0.0.4', server, victim.email, victim.password, {
      cookie,
    });
    expect(again.status).toBe(200);
    // Another account's session counts for nothing here.
    const other = await makeAccount(server.pool);
    const otherCookie = (
      await attemptFrom('127.0.0.9', server, other.email, other.password)
    ).headers
      .get('set-cookie')!
      .split(';')[0]!;
    expect(
      (
        await attemptFrom('127.0.0.4', server, victim.email, victim.password, {
          cookie: otherCookie,
        })
      ).status,
    ).toBe(429);
  });

  it('wrong passwords from many addresses are counted on the account; the right password still signs in', async () => {
    const victim = await makeAccount(server.pool);
    for (const address of ['127.0.0.5', '127.0.0.6'])
      for (let i = 0; i < FREE.attempts; i++)
        expect((await attemptFrom(address, server, victim.email, `wrong ${i}`)).status).toBe(401);
    const failures = async () =>
      (
        await server.pool.query('select failures from login_subject_failures where subject = $1', [
          `account:${victim.accountId}`,
        ])
      ).rows[0]?.failures;
    expect(await failures()).toBe(FREE.subject);
    // Held (holdFor says how long), not refused.
    expect((await attemptFrom('127.0.0.7', server, victim.email, victim.password)).status).toBe(
      200,
    );
    expect((await attemptFrom('127.0.0.8', server, victim.email, 'wrong again')).status).toBe(401);
    expect(await failures()).toBe(FREE.subject + 1);
  });
});

describe('the per-subject hold', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db.drop());

  it('is none for 10 wrong passwords, then 1 s, 2 s, 4 s, at most 8 s', () => {
    const schedule = Array.from({ length: 17 }, (_, n) => holdFor(n));
    expect(schedule).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 8, 8, 8]);
  });

  it('grows with the failures from every client, never refuses, and spares a session', async () => {
    for (let n = 0; n <= 16; n++) {
      const subject = `email:hold-${n}@example.com`;
      await db.pool.query(
        `insert into login_subject_failures (subject, failures, last_failure_at)
         values ($1, $2, now())`,
        [subject, n],
      );
      // A fresh address each time: nothing but the subject's failures weighs on it.
      const admission = await admitLoginAttempt(db.pool, subject, { address: `198.51.100.${n}` });
      const hold = holdFor(n);
      expect([n, admission]).toEqual([
        n,
        hold === 0
          ? { admitted: true }
          : {
              admitted: true,
              turn: { holdSeconds: hold, at: expect.any(Date), waitSeconds: hold },
            },
      ]);
      expect(await admitLoginAttempt(db.pool, subject, { sessionId: '1' })).toEqual({
        admitted: true,
      });
    }
    // Failures older than the window are forgotten.
    await db.pool.query(
      `insert into login_subject_failures (subject, failures, last_failure_at)
       values ('email:old@example.com', 40, now() - interval '16 minutes')`,
    );
    expect(
      await admitLoginAttempt(db.pool, 'email:old@example.com', { address: '198.51.100.99' }),
    ).toEqual({ admitted: true });
  });

  /** `count` attempts on `subject` from as many addresses at once: their turns, in order. */
  async function parallelTurns(subject: string, failures: number, count: number) {
    await db.pool.query(
      `insert into login_subject_failures (subject, failures, last_failure_at)
       values ($1, $2, now())`,
      [subject, failures],
    );
    const admissions = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        admitLoginAttempt(db.pool, subject, { address: `203.0.113.${100 + i}` }),
      ),
    );
    return admissions
      .map((a) => {
        if (!a.admitted || !a.turn) throw new Error(`not held: ${JSON.stringify(a)}`);
        return a.turn;
      })
      .sort((a, b) => a.at.getTime() - b.at.getTime());
  }

  it('gives parallel attempts from many addresses turns one hold apart, not one hold each', async () => {
    // 12 failures: a hold of 4 s. Five addresses guessing at once get their passwords checked
    // 4 s apart (the turns the database gave, not a clock read here), the first 4 s on.
    const turns = await parallelTurns('email:crowd@example.com', 12, 5);
    expect(turns.map((t) => t.holdSeconds)).toEqual([4, 4, 4, 4, 4]);
    const gaps = turns.slice(1).map((t, i) => t.at.getTime() - turns[i]!.at.getTime());
    expect(gaps).toEqual([4000, 4000, 4000, 4000]);
    expect(turns[0]!.waitSeconds).toBeCloseTo(4, 0);
    // The last waits for all four before it: about 20 s.
    expect(turns[4]!.waitSeconds).toBeGreaterThan(16);
  });

  it('gives no turn more than 30 s ahead: the right password waits at most that behind a crowd', async () => {
    // 13 failures: a hold of 8 s; the fifth and sixth turns would be 40 s and 48 s ahead.
    const turns = await parallelTurns('email:mob@example.com', 13, 6);
    const gaps = turns.slice(1, 3).map((t, i) => t.at.getTime() - turns[i]!.at.getTime());
    expect(gaps).toEqual([8000, 8000]);
    for (const t of turns) expect(t.waitSeconds).toBeLessThanOrEqual(30);
    expect(turns.at(-1)!.waitSeconds).toBeGreaterThan(24);
  });
});

describe('the subject is what the lookup finds, on a UTF-8 collation', () => {
  let db: TestDatabase;
  let server: TestServer;
  beforeAll(async () => {
    db = await utf8Database();
    server = await startServer({ db });
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  /** signIn's answer as a status: 200, or the DomainError's (the HTTP form refuses İ first). */
  const statusOf = (email: string, password: string, ip: string) =>
    signIn(server.pool, { email, password, ip }).then(
      () => 200,
      (e: DomainError) => e.status,
    );

  it('every spelling Postgres lowers to one account shares its count', async () => {
    const email = `ian-${process.pid}@example.com`;
    const password = 'correct horse battery';
    await createAccount(server.pool, { email, password, plan: 'plus' });
    expect((await server.pool.query(`select lower('İAN') as l`)).rows[0].l).toBe('ian');
    const spellings = [email, email.toUpperCase(), `İan-${process.pid}@example.com`];
    spellings.push(`İAN-${process.pid}@EXAMPLE.COM`, `ıan-${process.pid}@example.com`);
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++)
      for (const spelling of spellings)
        statuses.push(await statusOf(spelling, `wrong ${round}`, '203.0.113.50'));
    // Five tries on the account whatever the spelling; the dotless ı lowers to itself:
    // another (unknown) e-mail, with a count of its own.
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429, 429, 401]);
    // The right password under any spelling of the account waits too, from that address.
    expect(await statusOf(`İan-${process.pid}@example.com`, password, '203.0.113.50')).toBe(429);
  });

  it('an e-mail no account has is counted as Postgres lowers it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      for (const spelling of ['İnes@example.com', 'ines@example.com'])
        statuses.push(await statusOf(spelling, `guess ${i}`, '203.0.113.51'));
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });

  it('a sign-in refuses what cannot be an e-mail address, counting nothing', async () => {
    const before = await server.pool.query('select count(*)::int as n from login_client_attempts');
    for (const email of [`İAN-${process.pid}@example.com`, 'not an address', 'a@b', ' @ '])
      for (let i = 0; i < 6; i++) {
        const res = await attempt(server, email, `guess ${i}`);
        expect([email, res.status, res.body.code]).toEqual([email, 422, 'validation_failed']);
      }
    const after = await server.pool.query('select count(*)::int as n from login_client_attempts');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});

describe('the previous release, still signing people in through a rolling deploy', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db.drop());

  it("finds its throttle's tables as it left them (sql/012's), once this release's migrations ran", async () => {
    // The statements the previous release's core/sessions/db.ts sends for a sign-in and its
    // cleanup, verbatim: each would fail (a 500 for every sign-in) on a reshaped table.
    const previous: [string, unknown[]][] = [
      ['select pg_try_advisory_xact_lock($1, hashtext($2)) as locked', [734_201_014, '192.0.2.1']],
      [
        `select count(*)::int as emails, coalesce(bool_or(email = $2), false) as known,
                coalesce(extract(epoch from now() - max(added_at)), 0)::float8 as age
         from login_address_emails
         where address = $1 and added_at > now() - make_interval(secs => $3)`,
        ['192.0.2.1', 'old@example.com', 900],
      ],
      [
        `insert into login_attempts as la (email, attempts, last_attempt_at) values ($1, 1, now())
         on conflict (email) do update set
           attempts = case when la.last_attempt_at <= now() - make_interval(secs => $2)
                           then 1 else la.attempts + 1 end,
           last_attempt_at = now()
         where la.last_attempt_at <= now() - make_interval(secs => $2)
            or ($3::float8[])[least(la.attempts, cardinality($3::float8[]) - 1) + 1] = 0
            or la.last_attempt_at <= now() - make_interval(
                 secs => ($3::float8[])[least(la.attempts, cardinality($3::float8[]) - 1) + 1])
         returning attempts`,
        ['old@example.com', 900, [0, 0, 0, 0, 0, 30]],
      ],
      [
        `select attempts, extract(epoch from now() - last_attempt_at)::float8 as age
         from login_attempts where email = $1`,
        ['old@example.com'],
      ],
      [
        `insert into login_address_emails as p (address, email, added_at) values ($1, $2, now())
         on conflict (address, email) do update set added_at = case
           when p.added_at <= now() - make_interval(secs => $3) then now() else p.added_at end`,
        ['192.0.2.1', 'old@example.com', 900],
      ],
      ['delete from login_attempts where email = $1', ['old@example.com']],
      [
        'delete from login_address_emails where address = $1 and email = $2',
        ['192.0.2.1', 'old@example.com'],
      ],
      [
        'delete from login_attempts where last_attempt_at <= now() - make_interval(secs => $1)',
        [900],
      ],
      [
        'delete from login_address_emails where added_at <= now() - make_interval(secs => $1)',
        [900],
      ],
    ];
    const failed: string[] = [];
    for (const [sql, params] of previous)
      await db.pool.query(sql, params).catch((e: Error) => failed.push(e.message));
    expect(failed).toEqual([]);
  });
});

describe('a known and an unknown e-mail cost a sign-in the same statements', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  const sent: string[] = [];
  beforeAll(async () => {
    db = await freshDatabase();
    // The real database, every statement noted as it is sent (pool.query's included).
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      client.query = ((...args: unknown[]) => {
        const [q] = args;
        sent.push(typeof q === 'string' ? q : (q as { text: string }).text);
        return query(...args);
      }) as typeof client.query;
    });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  /** The statements a wrong password for `email` sends until its throttle transaction. */
  async function lookupStatements(email: string, ip: string) {
    sent.length = 0;
    await expect(signIn(pool, { email, password: 'wrong', ip })).rejects.toMatchObject({
      status: 401,
    });
    return sent.slice(0, sent.indexOf('begin'));
  }

  it('one lookup that also lowers the e-mail, whether or not an account has it', async () => {
    const acct = await makeAccount(db.pool);
    const known = await lookupStatements(acct.email, '192.0.2.10');
    const unknown = await lookupStatements('nobody@example.com', '192.0.2.11');
    expect(known).toHaveLength(1);
    expect(unknown).toEqual(known);
  });
});
