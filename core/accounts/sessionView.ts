// What the dashboard shows of the signed-in account (login response and GET /auth/session);
// its schema is in ./schema.ts.
import { brandsOf } from '../brands/service.ts';
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../kernel/errors.ts';
import { PLANS } from '../kernel/plans.ts';
import { PUBLISHING_PLATFORMS } from '../kernel/platforms.ts';
import { findAccountById } from './db.ts';
import type { SessionView } from './schema.ts';

// Kept for the routes that import the schema from here.
export { SessionView } from './schema.ts';

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
    plans: [...PLANS],
    platforms: [...PUBLISHING_PLATFORMS],
  };
}
