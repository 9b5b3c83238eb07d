// Login throttling (CONTRACT.md: repeated failures are slowed), by two rules:
// - Per e-mail, strict: 5 attempts are free, then each further one must wait 30 s, 60 s, ...
//   (at most 5 min) after the last. The attempt is recorded BEFORE the password is checked, by
//   one statement that also decides, so parallel attempts queue on the e-mail's row and at
//   most the free ones reach the password check.
// - Per client address, loose: it counts the distinct e-mails tried from it without success
//   (credential stuffing), not the attempts on one e-mail (the first rule handles those), so
//   one attacked account does not lock out everyone behind the same proxy. After 20 such
//   e-mails, a new one from the address waits likewise; e-mails it already tried do not.
// A successful login clears its e-mail's record and its place in the address's list.
import ipaddr from 'ipaddr.js';
import type { Pool, Queryable } from '../db/pool.ts';
import { withTransaction } from '../db/pool.ts';

const FREE = { email: 5, address: 20 };
const FIRST_DELAY_S = 30;
const MAX_DELAY_S = 300;
/** A record untouched this long is forgotten. */
const WINDOW_S = 15 * 60;
/** Our key space in pg_advisory_xact_lock(int, int). */
const ADDRESS_LOCK = 734_201_014;

/** Seconds to wait after the last counted attempt once `count` has reached `free`. */
const delayFor = (count: number, free: number) =>
  count < free ? 0 : Math.min(MAX_DELAY_S, FIRST_DELAY_S * 2 ** (count - free));

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * The address a client is throttled by: IPv4 as is (a mapped one unwrapped), IPv6 by its /64,
 * which one host usually has whole.
 */
export function throttledAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  const prefix = [...addr.toByteArray().slice(0, 8), 0, 0, 0, 0, 0, 0, 0, 0];
  return `${ipaddr.fromByteArray(prefix).toString()}/64`;
}

export type LoginAdmission = { admitted: true } | { admitted: false; waitSeconds: number };

const refused = (seconds: number): LoginAdmission => ({
  admitted: false,
  waitSeconds: Math.max(1, Math.ceil(seconds)),
});

/** The address rule: does a new e-mail from `address` have to wait, and how long? */
async function addressWaitSeconds(tx: Queryable, address: string, email: string) {
  const { rows } = await tx.query<{ emails: number; known: boolean; age: number }>(
    `select count(*)::int as emails, coalesce(bool_or(email = $2), false) as known,
            coalesce(extract(epoch from now() - max(added_at)), 0)::float8 as age
     from login_address_emails
     where address = $1 and added_at > now() - make_interval(secs => $3)`,
    [address, email, WINDOW_S],
  );
  const { emails, known, age } = rows[0]!;
  return known ? 0 : delayFor(emails, FREE.address) - age;
}

/**
 * The e-mail rule, decided and recorded in one statement: the row is locked by the upsert,
 * so concurrent attempts see each other's counts. Returns false when the attempt must wait.
 */
async function countEmailAttempt(tx: Queryable, email: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `insert into login_attempts as la (email, attempts, last_attempt_at) values ($1, 1, now())
     on conflict (email) do update set
       attempts = case when la.last_attempt_at <= now() - make_interval(secs => $2)
                       then 1 else la.attempts + 1 end,
       last_attempt_at = now()
     where la.last_attempt_at <= now() - make_interval(secs => $2)
        or la.attempts < $3::int
        or la.last_attempt_at <= now() - make_interval(
             secs => least($4::float8, $5::float8 * power(2, la.attempts - $3::int)))
     returning attempts`,
    [email, WINDOW_S, FREE.email, MAX_DELAY_S, FIRST_DELAY_S],
  );
  return rowCount === 1;
}

async function emailWaitSeconds(tx: Queryable, email: string): Promise<number> {
  const { rows } = await tx.query<{ attempts: number; age: number }>(
    `select attempts, extract(epoch from now() - last_attempt_at)::float8 as age
     from login_attempts where email = $1`,
    [email],
  );
  const row = rows[0];
  return row ? delayFor(row.attempts, FREE.email) - row.age : 0;
}

/**
 * Admits one login attempt, recording it, or says how long to wait. Call it before checking
 * the password; `address` comes from throttledAddress.
 */
export async function admitLoginAttempt(
  pool: Pool,
  rawEmail: string,
  address: string,
): Promise<LoginAdmission> {
  const email = normaliseEmail(rawEmail);
  return withTransaction(pool, async (tx) => {
    // One address's attempts pass here one at a time, so its count of e-mails is exact.
    await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [ADDRESS_LOCK, address]);
    const addressWait = await addressWaitSeconds(tx, address, email);
    if (addressWait > 0) return refused(addressWait);
    if (!(await countEmailAttempt(tx, email))) return refused(await emailWaitSeconds(tx, email));
    await tx.query(
      `insert into login_address_emails as p (address, email, added_at) values ($1, $2, now())
       on conflict (address, email) do update set added_at = case
         when p.added_at <= now() - make_interval(secs => $3) then now() else p.added_at end`,
      [address, email, WINDOW_S],
    );
    return { admitted: true };
  });
}

/** A successful login: its e-mail starts afresh, and the address no longer counts it. */
export async function clearLoginAttempts(pool: Pool, rawEmail: string, address: string) {
  const email = normaliseEmail(rawEmail);
  await pool.query('delete from login_attempts where email = $1', [email]);
  await pool.query('delete from login_address_emails where address = $1 and email = $2', [
    address,
    email,
  ]);
}

export async function forgetOldLoginAttempts(pool: Pool): Promise<void> {
  await pool.query(
    'delete from login_attempts where last_attempt_at <= now() - make_interval(secs => $1)',
    [WINDOW_S],
  );
  await pool.query(
    'delete from login_address_emails where added_at <= now() - make_interval(secs => $1)',
    [WINDOW_S],
  );
}
