// Keeping the engagement tables bounded: mentions (with their inbox actions) and agent tasks
// are kept KEEP_DAYS, so a flood of mentions or tasks does not grow the database for ever.
import { deleteOldTasks } from '../agentTasks/db.ts';
import type { Pool } from '../db/pool.ts';
import { deleteOldItems } from './db.ts';

export const KEEP_DAYS = 90;

export async function pruneEngagement(pool: Pool, days = KEEP_DAYS) {
  return { items: await deleteOldItems(pool, days), tasks: await deleteOldTasks(pool, days) };
}
