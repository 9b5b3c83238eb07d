// Login throttling (CONTRACT.md: repeated failures are slowed). What is throttled is the
// subject the account lookup finds: the account's id, or for an e-mail no account has, that
// e-mail as Postgres lowers it (the lookup's own lower()), so no spelling of one address gets
// tries of its own. A client is the connection's address, or a browser holding a valid
// session for that account. Three rules, none of which lets one client lock out another:
// - Per subject and client, strict: 5 attempts are free, then each further one must wait
//   30 s, 60 s, ... (at most 5 min) after the last (429). The attempt is recorded BEFORE the
//   password is checked, by one statement that also decides, so parallel attempts queue on the
//   row and at most the free ones reach the password check. Another client is untouched.
// - Per client address, loose: it counts the distinct subjects tried from it without success
//   (credential stuffing); after 20, a new one from the address waits likewise (429).
// - Per subject, from every client: wrong passwords are counted, and past 10 each further
//   attempt is held before its check, 1 s, 2 s, 4 s, at most 8 s. Held attempts take turns:
//   each is given the hold after the turn given before it (never more than 30 s ahead), so
//   many addresses guessing in parallel get one check per hold between them, not one each;
//   yet the right password still gets in (held, never refused). A browser holding a valid
//   session for the account is not held.
// A successful sign-in clears its client's count and the address's note of the subject.
import ipaddr from 'ipaddr.js';
import type { Pool, Queryable } from '../db/pool.ts';
import { withTransaction } from '../db/pool.ts';
import {
  type AttemptRule,
  addressSubjects,
  attemptsOf,
  countAttempt,
  deleteClientRecords,
  deleteLoginRecordsOlderThan,
  type HeldTurn,
  type HoldRule,
  recordSubjectFailure,
  rememberAddressSubject,
  takeHeldTurn,
  tryLockLoginAddress,
} from './db.ts';

export const FREE = { attempts: 5, address: 20, subject: 10 };
const FIRST_DELAY_S = 30;
const MAX_DELAY_S = 300;
const MAX_HOLD_S = 8;
/**
 * The furthest ahead a held attempt's turn is given: a crowd of guessers queues at most this
 * long, so the right password waits no longer than this (and a proxy's timeout) behind them.
 */
const MAX_TURN_WAIT_S = 30;
/** A record untouched this long is forgotten. */
const WINDOW_S = 15 * 60;

/**
 * Seconds to wait after the last counted attempt once `count` has reached `free`: the one
 * statement of the backoff. The SQL that admits an attempt is handed it as a table (below),
 * never a formula of its own.
 */
export const delayFor = (count: number, free: number) =>
  count < free ? 0 : Math.min(MAX_DELAY_S, FIRST_DELAY_S * 2 ** (count - free));

/** Seconds an attempt on a subject with `failures` recent wrong passwords is held. */
export const holdFor = (failures: number) =>
  failures < FREE.subject ? 0 : Math.min(MAX_HOLD_S, 2 ** (failures - FREE.subject));

/** delayFor(n, free) for n = 0, 1, ... up to the first at the maximum, which holds beyond. */
function delayTable(free: number): number[] {
  const delays = [delayFor(0, free)];
  while (delays.at(-1)! < MAX_DELAY_S) delays.push(delayFor(delays.length, free));
  return delays;
}

const ATTEMPT_RULE: AttemptRule = { windowS: WINDOW_S, delaysS: delayTable(FREE.attempts) };

/** holdFor(n) for n = 0, 1, ... up to the first at the maximum, which holds beyond. */
function holdTable(): number[] {
  const holds = [holdFor(0)];
  while (holds.at(-1)! < MAX_HOLD_S) holds.push(holdFor(holds.length));
  return holds;
}

const HOLD_RULE: HoldRule = { windowS: WINDOW_S, holdsS: holdTable(), maxWaitS: MAX_TURN_WAIT_S };

/**
 * What the lookup found for an e-mail, as the throttle keys it: the account, or the e-mail as
 * the lookup lowered it (Postgres's lower(), returned by the lookup itself).
 */
export const loginSubject = (found: { id: string } | undefined, lowered: string): string =>
  found ? `account:${found.id}` : `email:${lowered}`;

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

/** Who is signing in: from an address (throttledAddress's), or a browser with a session. */
export type LoginClient = { address: string } | { sessionId: string };

/**
 * An admitted attempt is checked at once, or when its `turn` comes (the subject's failures
 * hold it); a refused one may come back after `waitSeconds`.
 */
export type LoginAdmission =
  | { admitted: true; turn?: HeldTurn }
  | { admitted: false; waitSeconds: number };

export type { HeldTurn };

const clientKey = (c: LoginClient) => ('address' in c ? c.address : `session:${c.sessionId}`);

/** How often an attempt tries for its address's lock (over about 2 s) before a 429. */
const LOCK_TRIES = 20;

const refused = (seconds: number): LoginAdmission => ({
  admitted: false,
  waitSeconds: Math.max(1, Math.ceil(seconds)),
});

/** The address rule: does a new subject from `address` have to wait, and how long? */
async function addressWaitSeconds(tx: Queryable, address: string, subject: string) {
  const { subjects, known, age } = await addressSubjects(tx, {
    address,
    subject,
    windowS: WINDOW_S,
  });
  return known ? 0 : delayFor(subjects, FREE.address) - age;
}

async function clientWaitSeconds(tx: Queryable, key: { subject: string; client: string }) {
  const row = await attemptsOf(tx, key);
  return row ? delayFor(row.attempts, FREE.attempts) - row.age : 0;
}

/** The per-client rule alone: counts the attempt, or says how long to wait. */
async function countOrRefuse(tx: Queryable, key: { subject: string; client: string }) {
  return (await countAttempt(tx, key, ATTEMPT_RULE))
    ? undefined
    : refused(await clientWaitSeconds(tx, key));
}

/**
 * Admits one login attempt on `subject` (loginSubject's), recording it, or says how long to
 * wait; an admitted one that is held gets its turn, before which its password must not be
 * checked. Call it before checking the password.
 */
export async function admitLoginAttempt(
  pool: Pool,
  subject: string,
  client: LoginClient,
): Promise<LoginAdmission> {
  const key = { subject, client: clientKey(client) };
  // A browser holding the account's session answers to its own count only.
  if (!('address' in client))
    return (await withTransaction(pool, (tx) => countOrRefuse(tx, key))) ?? { admitted: true };
  const { address } = client;
  // One address's attempts pass one at a time, so its count of subjects is exact. An attempt
  // that finds the address's lock taken lets its connection go and tries again shortly, a
  // bounded number of times: waiting on the lock inside the transaction would let a flood
  // from one address park the whole pool there.
  for (let attempt = 0; attempt < LOCK_TRIES; attempt++) {
    const admission = await withTransaction(pool, async (tx) => {
      if (!(await tryLockLoginAddress(tx, address))) return undefined;
      const addressWait = await addressWaitSeconds(tx, address, subject);
      if (addressWait > 0) return refused(addressWait);
      const refusal = await countOrRefuse(tx, key);
      if (refusal) return refusal;
      await rememberAddressSubject(tx, { address, subject, windowS: WINDOW_S });
      const turn = await takeHeldTurn(tx, subject, HOLD_RULE);
      return turn ? ({ admitted: true, turn } as const) : ({ admitted: true } as const);
    });
    if (admission) return admission;
    await new Promise((resolve) => setTimeout(resolve, 10 + 10 * attempt));
  }
  return refused(1);
}

/** A wrong password for `subject`, from whichever client: it slows every later attempt. */
export const recordLoginFailure = (pool: Pool, subject: string) =>
  recordSubjectFailure(pool, subject, WINDOW_S);

/** A successful login: the client's count starts afresh, and its address no longer counts it. */
export async function clearLoginAttempts(pool: Pool, subject: string, client: LoginClient) {
  await deleteClientRecords(pool, {
    subject,
    client: clientKey(client),
    address: 'address' in client ? client.address : undefined,
  });
}

export async function forgetOldLoginAttempts(pool: Pool): Promise<void> {
  await deleteLoginRecordsOlderThan(pool, WINDOW_S);
}
