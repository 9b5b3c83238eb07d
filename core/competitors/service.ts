// Competitor profiles a brand tracks, for the dashboard session's
// /competitors: added (plus plan, at most 20 a brand, each once), listed, removed. Another
// account's brand or profile is not found.

import { requireBrandFor } from '../brands/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { conflict, notFound, planRequired } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import { API_PLAN, planAtLeast } from '../kernel/plans.ts';
import type { Principal } from '../kernel/principal.ts';
import {
  type CompetitorRow,
  deleteCompetitorRow,
  insertCompetitorWithin,
  listCompetitorRows,
} from './db.ts';
import {
  type AddCompetitorInput,
  type Competitor,
  type ListCompetitorsQuery,
  MAX_COMPETITORS,
} from './schema.ts';

type Caller = Pick<Principal, 'accountId' | 'selectedBrandId' | 'plan'>;

const toCompetitor = (r: CompetitorRow): Competitor => ({
  id: r.id,
  brand_id: r.brand_id,
  platform: r.platform as Competitor['platform'],
  handle: r.handle,
  ratio: r.ratio,
  floor: r.floor,
  created_at: r.created_at.toISOString(),
});

export async function addCompetitor(
  pool: Pool,
  caller: Caller,
  input: AddCompetitorInput,
): Promise<Competitor> {
  if (!planAtLeast(caller.plan, API_PLAN)) throw planRequired(API_PLAN, 'Competitor tracking');
  const brand = await requireBrandFor(pool, caller, input.brand_id);
  const row = await withTransaction(pool, (tx) =>
    insertCompetitorWithin(tx, MAX_COMPETITORS, {
      accountId: caller.accountId,
      brandId: brand.id,
      platform: input.platform,
      handle: input.handle,
      ratio: input.ratio,
      floor: input.floor,
    }),
  );
  if (row === 'limit_reached')
    throw conflict(
      'competitor_limit',
      `A brand tracks at most ${MAX_COMPETITORS} competitor profiles; remove one first.`,
    );
  if (row === 'exists')
    throw conflict(
      'competitor_exists',
      `The brand tracks ${input.handle} on ${input.platform} already.`,
    );
  return toCompetitor(row);
}

export async function listCompetitors(
  pool: Pool,
  caller: Caller,
  query: ListCompetitorsQuery,
): Promise<Competitor[]> {
  const brand = await requireBrandFor(pool, caller, query.brand_id);
  return (await listCompetitorRows(pool, caller.accountId, brand.id)).map(toCompetitor);
}

export async function removeCompetitor(pool: Pool, caller: Caller, id: string): Promise<void> {
  if (!isId(id) || !(await deleteCompetitorRow(pool, caller.accountId, id)))
    throw notFound('Competitor');
}

export { startWatches, watchAgainAfter, watchCompetitor } from './watch.ts';
