// Dashboard sessions: an opaque random token in a signed HttpOnly cookie, stored hashed.
import { createHash, randomBytes } from 'node:crypto';
import { findAccountByEmail, findAccountById } from '../accounts/db.ts';
import { budgetLimitOf, SCOPES } from '../accounts/plans.ts';
import type { Authenticated, Principal } from '../auth/principal.ts';
import type { Pool } from '../db/pool.ts';
import { DomainError, unauthenticated } from '../errors.ts';
import { DUMMY_HASH, verifyPassword } from '../passwords.ts';
import {
  deleteExpiredSessionRows,
  deleteSessionByHash,
  findLiveSession,
  insertSession,
} from './db.ts';
import { admitLoginAttempt, clearLoginAttempts, throttledAddress } from './loginThrottle.ts';

export const SESSION_TTL_SECONDS = 30 * 24 * 3600;

const hashToken = (token: string) => createHash('sha256').update(token).digest();

/** Checks a password; the same work is done for unknown emails so timing reveals nothing. */
export async function checkCredentials(pool: Pool, email: string, password: string) {
  const account = await findAccountByEmail(pool, email);
  const ok = await verifyPassword(password, account?.password_hash ?? DUMMY_HASH);
  return ok ? account : undefined;
}

/**
 * A dashboard sign-in from the client address `ip`: the attempt is admitted (and counted) by
 * the throttle before the password is hashed, so no burst gets more checks than it allows.
 */
/**
 * Counts an attempt with this e-mail from this client address (sign-in, or sign-up: each
 * tries an e-mail) under the login throttle, or refuses it with 429 and Retry-After.
 */
export async function admitAttempt(pool: Pool, email: string, ip: string): Promise<string> {
  const address = throttledAddress(ip);
  const admission = await admitLoginAttempt(pool, email, address);
  if (!admission.admitted) {
    const wait = admission.waitSeconds;
    throw new DomainError(
      429,
      'login_throttled',
      `Too many attempts; try again in ${wait} s.`,
      {},
      { 'Retry-After': String(wait) },
    );
  }
  return address;
}

export async function signIn(pool: Pool, input: { email: string; password: string; ip: string }) {
  const address = await admitAttempt(pool, input.email, input.ip);
  const account = await checkCredentials(pool, input.email, input.password);
  if (!account) throw unauthenticated('Wrong e-mail or password.');
  await clearLoginAttempts(pool, input.email, address);
  return account;
}

export async function createSession(pool: Pool, accountId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertSession(pool, {
    tokenHash: hashToken(token),
    accountId,
    ttlSeconds: SESSION_TTL_SECONDS,
  });
  return token;
}

export async function deleteSession(pool: Pool, token: string): Promise<void> {
  await deleteSessionByHash(pool, hashToken(token));
}

/** The signed-in principal for a session token; sessions act with every scope of the account. */
export async function principalForSession(
  pool: Pool,
  token: string,
): Promise<Principal | undefined> {
  return (await sessionAuthenticated(pool, token))?.principal;
}

/** principalForSession with the account's request budget (a session's requests count too). */
export async function sessionAuthenticated(
  pool: Pool,
  token: string,
): Promise<Authenticated | undefined> {
  const session = await findLiveSession(pool, hashToken(token));
  if (!session) return undefined;
  const account = await findAccountById(pool, session.account_id);
  if (!account) return undefined;
  return {
    principal: {
      accountId: account.id,
      email: account.email,
      plan: account.plan,
      scopes: [...SCOPES],
      features: account.features,
      selectedBrandId: account.selected_brand_id,
      credential: { kind: 'session', id: session.id },
    },
    budgetPerMinute: budgetLimitOf(account),
  };
}

export const deleteExpiredSessions = (pool: Pool): Promise<number> =>
  deleteExpiredSessionRows(pool);
