// Account operations used by the operator CLI and the dashboard session routes, and what
// other concepts ask of an account: its plan's quota, its credits, its selected brand.

import { type Brand, createBrand, requireOwnedBrand } from '../brands/service.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { conflict, forbidden, notFound } from '../kernel/errors.ts';
import { type Feature, type Plan, planAtLeast, STORAGE_QUOTA_BYTES } from '../kernel/plans.ts';
import { hashPassword } from '../passwords.ts';
import * as db from './db.ts';

export type AccountSummary = {
  id: string;
  email: string;
  plan: Plan;
  features: Feature[];
  credits: string;
  budget_per_minute: number | null;
  selected_brand_id: string | null;
};

export const toAccountSummary = (a: db.AccountRow): AccountSummary => ({
  id: a.id,
  email: a.email,
  plan: a.plan,
  features: a.features,
  credits: a.credits,
  budget_per_minute: a.budget_per_minute,
  selected_brand_id: a.selected_brand_id,
});

type NewAccount = { email: string; password: string; plan?: Plan; brandName?: string };

/** Creates an account with its first brand, selected (CONTRACT.md: a new account gets one). */
export async function createAccount(pool: Pool, input: NewAccount) {
  const passwordHash = await hashPassword(input.password);
  return withTransaction(pool, (tx) => createWithin(tx, input, passwordHash));
}

export type SignupPolicy = 'first' | 'open' | 'closed';

/** Whether the dashboard offers sign-up now (SIGNUP: first while no account exists). */
export async function signupOpen(pool: Queryable, policy: SignupPolicy): Promise<boolean> {
  return policy === 'open' || (policy === 'first' && (await db.countAccounts(pool)) === 0);
}

/**
 * The dashboard's sign-up (POST /auth/signup), as SIGNUP allows: `open`, or `first` while no
 * account exists (two sign-ups at once take turns, so only one is first); `closed` never.
 */
export async function signUp(pool: Pool, policy: SignupPolicy, input: NewAccount) {
  // Often read by the operator who just made an account with the CLI: say what to do now.
  const closed = () =>
    forbidden(
      'signup_closed',
      `${
        policy === 'first'
          ? 'Sign-up is for the first account only (SIGNUP=first), and an account exists already'
          : 'Sign-up is closed here (SIGNUP=closed)'
      }: an existing account signs in instead (POST /auth/login, or Sign in on the dashboard at /). ` +
        'The operator opens sign-up to everyone by starting the service with SIGNUP=open, or ' +
        'creates an account with npm run admin -- account create.',
    );
  // Refused before the (deliberately slow) hash: a closed door costs nothing to knock on.
  if (!(await signupOpen(pool, policy))) throw closed();
  const passwordHash = await hashPassword(input.password);
  return withTransaction(pool, async (tx) => {
    await tx.query(`select pg_advisory_xact_lock(hashtext('signup'))`);
    if (!(await signupOpen(tx, policy))) throw closed();
    return createWithin(tx, { ...input, plan: 'free' }, passwordHash);
  });
}

/** Refuses (409 email_taken) an e-mail an account has already. */
export async function assertEmailFree(pool: Queryable, email: string) {
  if (await db.findAccountByEmail(pool, email))
    throw conflict('email_taken', `An account with email ${email} already exists.`);
}

async function createWithin(tx: Queryable, input: NewAccount, passwordHash: string) {
  await assertEmailFree(tx, input.email);
  const accountId = await db.insertAccount(tx, {
    email: input.email,
    passwordHash,
    plan: input.plan ?? 'free',
  });
  const brand = await createBrand(tx, accountId, { name: input.brandName ?? 'My brand' });
  await db.setSelectedBrand(tx, accountId, brand.id);
  return { accountId, brand, plan: input.plan ?? 'free' };
}

export async function requireAccountByEmail(pool: Pool, email: string) {
  const account = await db.findAccountByEmail(pool, email);
  if (!account) throw notFound(`Account ${email}`);
  return account;
}

/**
 * The account a sign-in names, and the e-mail as the lookup lowered it (what the login
 * throttle counts an unknown one as): one statement either way.
 */
export const lookUpSignIn = (pool: Pool, email: string) =>
  db.findAccountByLoweredEmail(pool, email);

export async function requireAccount(pool: Pool, id: string) {
  const account = await db.findAccountById(pool, id);
  if (!account) throw notFound('Account');
  return account;
}

/** Whether the account's plan is at least `minimum` now (a lowered plan counts at once). */
export async function hasPlan(pool: Pool, id: string, minimum: Plan): Promise<boolean> {
  const account = await db.findAccountById(pool, id);
  return account !== undefined && planAtLeast(account.plan, minimum);
}

/** Whether the account holds the feature gate now. */
export async function hasFeature(pool: Pool, id: string, feature: Feature): Promise<boolean> {
  const account = await db.findAccountById(pool, id);
  return account?.features.includes(feature) ?? false;
}

export async function setPlan(pool: Pool, accountId: string, plan: Plan) {
  await db.updatePlan(pool, accountId, plan);
}

export async function setFeature(pool: Pool, accountId: string, feature: Feature, on: boolean) {
  await (on ? db.grantFeature : db.revokeFeature)(pool, accountId, feature);
  return (await requireAccount(pool, accountId)).features;
}

/** Adds credits (the operator's grant, a failed job's refund); answers the credits now. */
export async function addCredits(db_: Queryable, accountId: string, amount: number) {
  return db.addCredits(db_, accountId, amount);
}

/** Takes `amount` credits if the account has them: the credits left, or undefined if not. */
export async function spendCredits(
  db_: Queryable,
  accountId: string,
  amount: number,
): Promise<string | undefined> {
  return db.takeCredits(db_, accountId, amount);
}

/** The account's credits now. */
export async function creditsOf(db_: Queryable, accountId: string): Promise<number> {
  return db.creditsOf(db_, accountId);
}

/** The account as others see it, or undefined when there is none (a deleted account). */
export async function findAccount(
  db_: Queryable,
  accountId: string,
): Promise<AccountSummary | undefined> {
  const row = await db.findAccountById(db_, accountId);
  return row && toAccountSummary(row);
}

/** The storage quota of the account's plan now, in bytes (a lowered plan counts at once). */
export async function storageQuotaOf(db_: Queryable, accountId: string): Promise<number> {
  const account = await db.findAccountById(db_, accountId);
  if (!account) throw new Error(`account ${accountId} not found`);
  return STORAGE_QUOTA_BYTES[account.plan];
}

/** Selects the account's brand: the default wherever brand_id is omitted. */
export async function selectBrand(pool: Pool, accountId: string, brandId: string): Promise<Brand> {
  const brand = await requireOwnedBrand(pool, accountId, brandId);
  await db.setSelectedBrand(pool, accountId, brand.id);
  return brand;
}

/** Overrides the plan's request budget; null returns to the plan's value. */
export async function setBudget(pool: Pool, accountId: string, perMinute: number | null) {
  await db.updateBudget(pool, accountId, perMinute);
}

export { describeMe, MeOutput } from './me.ts';
export { SessionView, sessionView } from './sessionView.ts';
