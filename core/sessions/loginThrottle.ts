// Slows repeated login failures per account (email) and per client address: after its free
// failures a subject must wait 2^(n - free) seconds (capped) after its last failure before
// another attempt is even checked. Failures older than the window are forgotten. An address
// gets more free failures than an account because many people can share one (office NAT).
import type { Pool } from '../db/pool.ts';

const FREE_FAILURES = { email: 5, ip: 20 };
const MAX_DELAY_S = 300;
const WINDOW_S = 15 * 60;

export const loginSubjects = (email: string, ip: string) => [
  `email:${email.trim().toLowerCase()}`,
  `ip:${ip}`,
];

function delayFor(subject: string, failures: number): number {
  const free = subject.startsWith('ip:') ? FREE_FAILURES.ip : FREE_FAILURES.email;
  return failures < free ? 0 : Math.min(MAX_DELAY_S, 2 ** (failures - free));
}

/** Seconds the caller must still wait before a login attempt for these subjects, or 0. */
export async function loginWaitSeconds(pool: Pool, subjects: string[]): Promise<number> {
  const { rows } = await pool.query<{ subject: string; failures: number; age: number }>(
    `select subject, failures, extract(epoch from now() - last_failure_at)::float8 as age
     from login_failures where subject = any($1) and last_failure_at > now() - make_interval(secs => $2)`,
    [subjects, WINDOW_S],
  );
  let wait = 0;
  for (const r of rows) wait = Math.max(wait, delayFor(r.subject, r.failures) - r.age);
  return Math.ceil(Math.max(0, wait));
}

export async function recordLoginFailure(pool: Pool, subjects: string[]): Promise<void> {
  await pool.query(
    `insert into login_failures as lf (subject, failures, last_failure_at)
     select s, 1, now() from unnest($1::text[]) as s
     on conflict (subject) do update set
       failures = case when lf.last_failure_at > now() - make_interval(secs => $2)
                       then lf.failures + 1 else 1 end,
       last_failure_at = now()`,
    [subjects, WINDOW_S],
  );
}

/** A successful login clears the account's count (the address keeps its own). */
export async function clearLoginFailures(pool: Pool, subjects: string[]): Promise<void> {
  await pool.query('delete from login_failures where subject = any($1)', [subjects]);
}

export async function forgetOldLoginFailures(pool: Pool): Promise<void> {
  await pool.query(
    'delete from login_failures where last_failure_at <= now() - make_interval(secs => $1)',
    [WINDOW_S],
  );
}
