// SQL for dashboard sessions (stored by token hash) and the login throttle's records
// (login_client_attempts per subject and client, login_address_subjects per client address,
// login_subject_failures per subject). The rules that use them are in service.ts and
// loginThrottle.ts.
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
 * The subjects tried from `address` within the last `windowS` seconds: how many, whether
 * `subject` is among them, and the seconds since the latest was added.
 */
export async function addressSubjects(
  tx: Queryable,
  q: { address: string; subject: string; windowS: number },
): Promise<{ subjects: number; known: boolean; age: number }> {
  const { rows } = await tx.query<{ subjects: number; known: boolean; age: number }>(
    `select count(*)::int as subjects, coalesce(bool_or(subject = $2), false) as known,
            coalesce(extract(epoch from now() - max(added_at)), 0)::float8 as age
     from login_address_subjects
     where address = $1 and added_at > now() - make_interval(secs => $3)`,
    [q.address, q.subject, q.windowS],
  );
  return rows[0]!;
}

/**
 * The strict rule: a record older than `windowS` starts afresh; after `n` counted attempts
 * the next must wait `delaysS[n]` seconds after the last (the last entry holding for every
 * larger n; 0: no wait). The table comes from loginThrottle.ts's delayFor.
 */
export type AttemptRule = { windowS: number; delaysS: number[] };

/**
 * Counts an attempt on `subject` by `client` when the rule lets it through, deciding and
 * recording in one statement: the upsert locks the row, so concurrent attempts see each
 * other's counts. Returns false (nothing recorded) when the attempt must wait.
 */
export async function countAttempt(
  tx: Queryable,
  key: { subject: string; client: string },
  rule: AttemptRule,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `insert into login_client_attempts as la (subject, client, attempts, last_attempt_at)
     values ($1, $2, 1, now())
     on conflict (subject, client) do update set
       attempts = case when la.last_attempt_at <= now() - make_interval(secs => $3)
                       then 1 else la.attempts + 1 end,
       last_attempt_at = now()
     where la.last_attempt_at <= now() - make_interval(secs => $3)
        or ($4::float8[])[least(la.attempts, cardinality($4::float8[]) - 1) + 1] = 0
        or la.last_attempt_at <= now() - make_interval(
             secs => ($4::float8[])[least(la.attempts, cardinality($4::float8[]) - 1) + 1])
     returning attempts`,
    [key.subject, key.client, rule.windowS, rule.delaysS],
  );
  return rowCount === 1;
}

/** The attempts counted on `subject` by `client` and the seconds since the last one. */
export async function attemptsOf(
  tx: Queryable,
  key: { subject: string; client: string },
): Promise<{ attempts: number; age: number } | undefined> {
  const { rows } = await tx.query<{ attempts: number; age: number }>(
    `select attempts, extract(epoch from now() - last_attempt_at)::float8 as age
     from login_client_attempts where subject = $1 and client = $2`,
    [key.subject, key.client],
  );
  return rows[0];
}

/** Adds `subject` to the address's list (its time renewed once older than `windowS`). */
export async function rememberAddressSubject(
  tx: Queryable,
  r: { address: string; subject: string; windowS: number },
): Promise<void> {
  await tx.query(
    `insert into login_address_subjects as p (address, subject, added_at) values ($1, $2, now())
     on conflict (address, subject) do update set added_at = case
       when p.added_at <= now() - make_interval(secs => $3) then now() else p.added_at end`,
    [r.address, r.subject, r.windowS],
  );
}

/**
 * The hold on a subject: `holdsS[n]` seconds after n wrong passwords (the last entry holding
 * for every larger n; 0: none), counting those of the last `windowS` seconds; a turn is never
 * given further than `maxWaitS` ahead. The table comes from loginThrottle.ts's holdFor.
 */
export type HoldRule = { windowS: number; holdsS: number[]; maxWaitS: number };

/** A held attempt's turn: when its password may be checked, and the seconds until then. */
export type HeldTurn = { holdSeconds: number; at: Date; waitSeconds: number };

/**
 * Gives an attempt on `subject` its turn when the subject's failures hold it: the hold after
 * the later of now and the turn given last (at most `maxWaitS` from now). One statement,
 * which locks the row, so parallel attempts from any number of clients get turns one hold
 * apart instead of all waiting the same hold side by side. Undefined when nothing holds it.
 */
export async function takeHeldTurn(
  tx: Queryable,
  subject: string,
  rule: HoldRule,
): Promise<HeldTurn | undefined> {
  const { rows } = await tx.query<HeldTurn>(
    `with rule as (select $3::float8[] as holds)
     update login_subject_failures f set next_slot_at = least(
         greatest(now(), coalesce(f.next_slot_at, now()))
           + make_interval(secs => rule.holds[least(f.failures, cardinality(rule.holds) - 1) + 1]),
         now() + make_interval(secs => $4))
       from rule
      where f.subject = $1 and f.last_failure_at > now() - make_interval(secs => $2)
        and rule.holds[least(f.failures, cardinality(rule.holds) - 1) + 1] > 0
      returning rule.holds[least(f.failures, cardinality(rule.holds) - 1) + 1] as "holdSeconds",
                f.next_slot_at as at,
                extract(epoch from f.next_slot_at - now())::float8 as "waitSeconds"`,
    [subject, rule.windowS, rule.holdsS, rule.maxWaitS],
  );
  return rows[0];
}

/** One more wrong password for `subject` (a record older than `windowS` starts afresh). */
export async function recordSubjectFailure(
  db: Queryable,
  subject: string,
  windowS: number,
): Promise<void> {
  await db.query(
    `insert into login_subject_failures as f (subject, failures, last_failure_at)
     values ($1, 1, now())
     on conflict (subject) do update set
       failures = case when f.last_failure_at <= now() - make_interval(secs => $2)
                       then 1 else f.failures + 1 end,
       last_failure_at = now()`,
    [subject, windowS],
  );
}

/**
 * A successful sign-in: the client's count on the subject, and the subject's place in the
 * address's list, go. The subject's failures stay: they are other clients' doing.
 */
export async function deleteClientRecords(
  db: Queryable,
  r: { subject: string; client: string; address: string | undefined },
): Promise<void> {
  await db.query('delete from login_client_attempts where subject = $1 and client = $2', [
    r.subject,
    r.client,
  ]);
  if (r.address !== undefined)
    await db.query('delete from login_address_subjects where address = $1 and subject = $2', [
      r.address,
      r.subject,
    ]);
}

/** Forgets the records untouched for `windowS` seconds. */
export async function deleteLoginRecordsOlderThan(db: Queryable, windowS: number): Promise<void> {
  await db.query(
    'delete from login_client_attempts where last_attempt_at <= now() - make_interval(secs => $1)',
    [windowS],
  );
  await db.query(
    'delete from login_address_subjects where added_at <= now() - make_interval(secs => $1)',
    [windowS],
  );
  await db.query(
    'delete from login_subject_failures where last_failure_at <= now() - make_interval(secs => $1)',
    [windowS],
  );
}
