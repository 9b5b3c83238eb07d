// SQL for dashboard sessions (stored by token hash) and the login throttle's records
// (login_attempts per e-mail, login_address_emails per client address). The rules that use
// them are in service.ts and loginThrottle.ts.
import type { Queryable } from '../db/pool.ts';

export async function insertSession(
  db: Queryable,
  s: { tokenHash: Buffer; accountId: string; ttlSeconds: number },
): Promise<void> {
  await db.query(
    `insert into sessions (token_hash, account_id, expires_at)
     values ($1, $2, now() + make_interval(secs => $3))`,
    [s.tokenHash, s.accountId, s.ttlSeconds],
  );
}

export async function deleteSessionByHash(db: Queryable, tokenHash: Buffer): Promise<void> {
  await db.query('delete from sessions where token_hash = $1', [tokenHash]);
}

/** The unexpired session with this token hash. */
export async function findLiveSession(
  db: Queryable,
  tokenHash: Buffer,
): Promise<{ id: string; account_id: string } | undefined> {
  const { rows } = await db.query<{ id: string; account_id: string }>(
    'select id, account_id from sessions where token_hash = $1 and expires_at > now()',
    [tokenHash],
  );
  return rows[0];
}

export async function deleteExpiredSessionRows(db: Queryable): Promise<number> {
  const res = await db.query('delete from sessions where expires_at <= now()');
  return res.rowCount ?? 0;
}

/** Our key space in pg_advisory_xact_lock(int, int). */
const ADDRESS_LOCK = 734_201_014;

/**
 * Takes one client address's lock until the transaction ends, without waiting: false when
 * another attempt from that address holds it.
 */
export async function tryLockLoginAddress(tx: Queryable, address: string): Promise<boolean> {
  const { rows } = await tx.query<{ locked: boolean }>(
    'select pg_try_advisory_xact_lock($1, hashtext($2)) as locked',
    [ADDRESS_LOCK, address],
  );
  return rows[0]!.locked;
}

/**
 * The e-mails tried from `address` within the last `windowS` seconds: how many, whether
 * `email` is among them, and the seconds since the latest was added.
 */
export async function addressEmails(
  tx: Queryable,
  q: { address: string; email: string; windowS: number },
): Promise<{ emails: number; known: boolean; age: number }> {
  const { rows } = await tx.query<{ emails: number; known: boolean; age: number }>(
    `select count(*)::int as emails, coalesce(bool_or(email = $2), false) as known,
            coalesce(extract(epoch from now() - max(added_at)), 0)::float8 as age
     from login_address_emails
     where address = $1 and added_at > now() - make_interval(secs => $3)`,
    [q.address, q.email, q.windowS],
  );
  return rows[0]!;
}

/**
 * The per-e-mail rule: a record older than `windowS` starts afresh; after `n` counted
 * attempts the next must wait `delaysS[n]` seconds after the last (the last entry holding for
 * every larger n; 0: no wait). The table comes from loginThrottle.ts's delayFor.
 */
export type EmailRule = { windowS: number; delaysS: number[] };

/**
 * Counts an attempt on `email` when the rule lets it through, deciding and recording in one
 * statement: the upsert locks the row, so concurrent attempts see each other's counts.
 * Returns false (nothing recorded) when the attempt must wait.
 */
export async function countEmailAttempt(
  tx: Queryable,
  email: string,
  rule: EmailRule,
): Promise<boolean> {
  const { rowCount } = await tx.query(
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
    [email, rule.windowS, rule.delaysS],
  );
  return rowCount === 1;
}

/** The attempts counted on `email` and the seconds since the last one. */
export async function emailAttempts(
  tx: Queryable,
  email: string,
): Promise<{ attempts: number; age: number } | undefined> {
  const { rows } = await tx.query<{ attempts: number; age: number }>(
    `select attempts, extract(epoch from now() - last_attempt_at)::float8 as age
     from login_attempts where email = $1`,
    [email],
  );
  return rows[0];
}

/** Adds `email` to the address's list (its time renewed once older than `windowS`). */
export async function rememberAddressEmail(
  tx: Queryable,
  r: { address: string; email: string; windowS: number },
): Promise<void> {
  await tx.query(
    `insert into login_address_emails as p (address, email, added_at) values ($1, $2, now())
     on conflict (address, email) do update set added_at = case
       when p.added_at <= now() - make_interval(secs => $3) then now() else p.added_at end`,
    [r.address, r.email, r.windowS],
  );
}

export async function deleteLoginRecords(
  db: Queryable,
  r: { email: string; address: string },
): Promise<void> {
  await db.query('delete from login_attempts where email = $1', [r.email]);
  await db.query('delete from login_address_emails where address = $1 and email = $2', [
    r.address,
    r.email,
  ]);
}

/** Forgets the records untouched for `windowS` seconds. */
export async function deleteLoginRecordsOlderThan(db: Queryable, windowS: number): Promise<void> {
  await db.query(
    'delete from login_attempts where last_attempt_at <= now() - make_interval(secs => $1)',
    [windowS],
  );
  await db.query(
    'delete from login_address_emails where added_at <= now() - make_interval(secs => $1)',
    [windowS],
  );
}
