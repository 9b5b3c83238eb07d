// SQL for accounts and their feature gates.
import type { Queryable } from '../db/pool.ts';
import type { Feature, Plan } from '../kernel/plans.ts';

export type AccountRow = {
  id: string;
  email: string;
  password_hash: string;
  plan: Plan;
  credits: string;
  budget_per_minute: number | null;
  selected_brand_id: string | null;
  created_at: Date;
  features: Feature[];
};

const SELECT_ACCOUNT = `
  select a.*, coalesce(
    (select array_agg(f.feature order by f.feature) from account_features f where f.account_id = a.id),
    '{}') as features
  from accounts a`;

export async function insertAccount(
  db: Queryable,
  a: { email: string; passwordHash: string; plan: Plan },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'insert into accounts (email, password_hash, plan) values ($1, $2, $3) returning id',
    [a.email, a.passwordHash, a.plan],
  );
  return rows[0]!.id;
}

export async function findAccountByEmail(db: Queryable, email: string) {
  const { rows } = await db.query<AccountRow>(
    `${SELECT_ACCOUNT} where lower(a.email) = lower($1)`,
    [email],
  );
  return rows[0];
}

/**
 * findAccountByEmail's account, with the e-mail as that comparison lowers it (Postgres's
 * lower(), which differs from JavaScript's beyond ASCII): one statement whether or not an
 * account has it, so a sign-in's timing tells neither apart.
 */
export async function findAccountByLoweredEmail(
  db: Queryable,
  email: string,
): Promise<{ lowered: string; account: AccountRow | undefined }> {
  const { rows } = await db.query<AccountRow & { lowered: string }>(
    `select found.*, l.lowered
       from (select lower($1::text) as lowered) l
       left join lateral (${SELECT_ACCOUNT} where lower(a.email) = l.lowered) found on true`,
    [email],
  );
  const { lowered, ...account } = rows[0]!;
  return { lowered, account: account.id === null ? undefined : account };
}

export async function findAccountById(db: Queryable, id: string) {
  const { rows } = await db.query<AccountRow>(`${SELECT_ACCOUNT} where a.id = $1`, [id]);
  return rows[0];
}

export async function countAccounts(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from accounts');
  return rows[0]!.n;
}

export async function updatePlan(db: Queryable, id: string, plan: Plan) {
  await db.query('update accounts set plan = $2 where id = $1', [id, plan]);
}

export async function updateBudget(db: Queryable, id: string, perMinute: number | null) {
  await db.query('update accounts set budget_per_minute = $2 where id = $1', [id, perMinute]);
}

export async function addCredits(db: Queryable, id: string, amount: number): Promise<string> {
  const { rows } = await db.query<{ credits: string }>(
    'update accounts set credits = credits + $2 where id = $1 returning credits',
    [id, amount],
  );
  return rows[0]!.credits;
}

export async function setSelectedBrand(db: Queryable, accountId: string, brandId: string) {
  await db.query('update accounts set selected_brand_id = $2 where id = $1', [accountId, brandId]);
}

export async function grantFeature(db: Queryable, accountId: string, feature: Feature) {
  await db.query(
    'insert into account_features (account_id, feature) values ($1, $2) on conflict do nothing',
    [accountId, feature],
  );
}

export async function revokeFeature(db: Queryable, accountId: string, feature: Feature) {
  await db.query('delete from account_features where account_id = $1 and feature = $2', [
    accountId,
    feature,
  ]);
}

export async function creditsOf(db: Queryable, accountId: string): Promise<number> {
  const { rows } = await db.query<{ credits: string }>(
    'select credits from accounts where id = $1',
    [accountId],
  );
  return Number(rows[0]?.credits ?? 0);
}

/** Takes `amount` credits if the account has them; the credits left, or undefined if not. */
export async function takeCredits(
  db: Queryable,
  id: string,
  amount: number,
): Promise<string | undefined> {
  const { rows } = await db.query<{ credits: string }>(
    `update accounts set credits = credits - $2 where id = $1 and credits >= $2
     returning credits`,
    [id, amount],
  );
  return rows[0]?.credits;
}
