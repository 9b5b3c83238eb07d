// Dashboard sessions: an opaque random token in a signed HttpOnly cookie, stored hashed.
import { createHash, randomBytes } from 'node:crypto';
import { findAccount, lookUpSignIn } from '../accounts/service.ts';
import type { Authenticated } from '../auth/service.ts';
import type { Pool } from '../db/pool.ts';
import { DomainError, unauthenticated } from '../kernel/errors.ts';
import { budgetLimitOf, SCOPES } from '../kernel/plans.ts';
import type { Principal } from '../kernel/principal.ts';
import { DUMMY_HASH, verifyPassword } from '../passwords.ts';
import {
  deleteExpiredSessionRows,
  deleteSessionByHash,
  findLiveSession,
  insertSession,
} from './db.ts';
import {
  admitLoginAttempt,
  clearLoginAttempts,
  type LoginClient,
  loginSubject,
  recordLoginFailure,
  throttledAddress,
} from './loginThrottle.ts';

export { throttledAddress };

export const SESSION_TTL_SECONDS = 30 * 24 * 3600;

const hashToken = (token: string) => createHash('sha256').update(token).digest();

/** Who signs in: the client address (`ip`), and the browser's session when it holds one. */
export type SignInClient = { ip: string; session?: { accountId: string; id: string } };

const throttled = (wait: number) =>
  new DomainError(
    'login_throttled',
    `Too many attempts; try again in ${wait} s.`,
    {},
    { headers: { 'Retry-After': String(wait) } },
  );

/**
 * Counts an attempt on `subject` from this client under the login throttle, holding it until
 * its turn when the throttle gives one, or refuses it with 429 and Retry-After. A browser holding a valid
 * session for the very account signing in counts apart from its address.
 */
async function admit(
  pool: Pool,
  subject: string,
  client: SignInClient,
  accountId: string | undefined,
): Promise<LoginClient> {
  const who: LoginClient =
    client.session && accountId !== undefined && client.session.accountId === accountId
      ? { sessionId: client.session.id }
      : { address: throttledAddress(client.ip) };
  const admission = await admitLoginAttempt(pool, subject, who);
  if (!admission.admitted) throw throttled(admission.waitSeconds);
  // Waits for its turn with no pooled connection held: the turn was taken and committed.
  if (admission.turn)
    await new Promise((resolve) => setTimeout(resolve, admission.turn!.waitSeconds * 1000));
  return who;
}

/**
 * Counts an attempt with this e-mail (a sign-up tries one) from this client under the login
 * throttle, or refuses it with 429 and Retry-After.
 */
export async function admitAttempt(pool: Pool, email: string, ip: string): Promise<void> {
  const { account, lowered } = await lookUpSignIn(pool, email);
  await admit(pool, loginSubject(account, lowered), { ip }, account?.id);
}

/**
 * A dashboard sign-in: the attempt is admitted (and counted) by the throttle before the
 * password is hashed, so no burst gets more checks than it allows. The same work is done
 * for an unknown e-mail, so timing reveals nothing.
 */
export async function signIn(
  pool: Pool,
  input: { email: string; password: string } & SignInClient,
) {
  const { account, lowered } = await lookUpSignIn(pool, input.email);
  const subject = loginSubject(account, lowered);
  const who = await admit(pool, subject, input, account?.id);
  const ok = await verifyPassword(input.password, account?.password_hash ?? DUMMY_HASH);
  if (!ok || !account) {
    await recordLoginFailure(pool, subject);
    throw unauthenticated('Wrong e-mail or password.');
  }
  await clearLoginAttempts(pool, subject, who);
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
  const account = await findAccount(pool, session.account_id);
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

export { forgetOldLoginAttempts } from './loginThrottle.ts';
