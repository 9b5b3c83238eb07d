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
import {
  addressEmails,
  countEmailAttempt,
  deleteLoginRecords,
  deleteLoginRecordsOlderThan,
  type EmailRule,
  emailAttempts,
  rememberAddressEmail,
  tryLockLoginAddress,
} from './db.ts';

export const FREE = { email: 5, address: 20 };
const FIRST_DELAY_S = 30;
const MAX_DELAY_S = 300;
/** A record untouched this long is forgotten. */
const WINDOW_S = 15 * 60;

/**
 * Seconds to wait after the last counted attempt once `count` has reached `free`: the one
 * statement of the backoff. The SQL that admits an e-mail's attempt is handed it as a table
 * (below), never a formula of its own.
 */
export const delayFor = (count: number, free: number) =>
  count < free ? 0 : Math.min(MAX_DELAY_S, FIRST_DELAY_S * 2 ** (count - free));

/** delayFor(n, free) for n = 0, 1, ... up to the first at the maximum, which holds beyond. */
function delayTable(free: number): number[] {
  const delays = [delayFor(0, free)];
  while (delays.at(-1)! < MAX_DELAY_S) delays.push(delayFor(delays.length, free));
  return delays;
}

const EMAIL_RULE: EmailRule = { windowS: WINDOW_S, delaysS: delayTable(FREE.email) };

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

/** How often an attempt tries for its address's lock (over about 2 s) before a 429. */
const LOCK_TRIES = 20;

const refused = (seconds: number): LoginAdmission => ({
  admitted: false,
  waitSeconds: Math.max(1, Math.ceil(seconds)),
});

/** The address rule: does a new e-mail from `address` have to wait, and how long? */
async function addressWaitSeconds(tx: Queryable, address: string, email: string) {
  const { emails, known, age } = await addressEmails(tx, { address, email, windowS: WINDOW_S });
  return known ? 0 : delayFor(emails, FREE.address) - age;
}

async function emailWaitSeconds(tx: Queryable, email: string): Promise<number> {
  const row = await emailAttempts(tx, email);
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
  // One address's attempts pass one at a time, so its count of e-mails is exact. An attempt
  // that finds the address's lock taken lets its connection go and tries again shortly, a
  // bounded number of times: waiting on the lock inside the transaction would let a flood
  // from one address park the whole pool there.
  for (let attempt = 0; attempt < LOCK_TRIES; attempt++) {
    const admission = await withTransaction(pool, async (tx) => {
      if (!(await tryLockLoginAddress(tx, address))) return undefined;
      const addressWait = await addressWaitSeconds(tx, address, email);
      if (addressWait > 0) return refused(addressWait);
      if (!(await countEmailAttempt(tx, email, EMAIL_RULE)))
        return refused(await emailWaitSeconds(tx, email));
      await rememberAddressEmail(tx, { address, email, windowS: WINDOW_S });
      return { admitted: true } as const;
    });
    if (admission) return admission;
    await new Promise((resolve) => setTimeout(resolve, 10 + 10 * attempt));
  }
  return refused(1);
}

/** A successful login: its e-mail starts afresh, and the address no longer counts it. */
export async function clearLoginAttempts(pool: Pool, rawEmail: string, address: string) {
  await deleteLoginRecords(pool, { email: normaliseEmail(rawEmail), address });
}

export async function forgetOldLoginAttempts(pool: Pool): Promise<void> {
  await deleteLoginRecordsOlderThan(pool, WINDOW_S);
}
