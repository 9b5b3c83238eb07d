// Keeping the engagement tables bounded: mentions (with their inbox actions) are kept
// KEEP_DAYS, so a flood of mentions does not grow the database for ever.
import type { Pool } from '../db/pool.ts';
import { deleteOldItems } from './db.ts';

export const KEEP_DAYS = 90;

export async function pruneEngagement(pool: Pool, days = KEEP_DAYS) {
  return { items: await deleteOldItems(pool, days) };
}
