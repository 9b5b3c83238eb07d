// What the dashboard shows of the signed-in account (login response and GET /auth/session).
import { z } from 'zod';
import { Brand, brandsOf } from '../brands/service.ts';
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../kernel/errors.ts';
import { Feature, Plan } from '../kernel/plans.ts';
import { findAccountById } from './db.ts';

export const SessionView = z.object({
  account: z.object({
    id: z.string(),
    email: z.string(),
    plan: Plan,
    features: z.array(Feature),
    credits: z.string().describe('Generation credits left (a decimal string).'),
  }),
  brands: z.array(Brand),
  selected_brand_id: z.string().nullable(),
});
export type SessionView = z.infer<typeof SessionView>;

export async function sessionView(db: Queryable, accountId: string): Promise<SessionView> {
  const account = await findAccountById(db, accountId);
  if (!account) throw notFound('Account');
  return {
    account: {
      id: account.id,
      email: account.email,
      plan: account.plan,
      features: account.features,
      credits: account.credits,
    },
    brands: await brandsOf(db, accountId),
    selected_brand_id: account.selected_brand_id,
  };
}
