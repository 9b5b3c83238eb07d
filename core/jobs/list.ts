// The dashboard's jobs page: the account's newest jobs, each as job_status answers it.
import type { Queryable } from '../db/pool.ts';
import type { Job } from './schema.ts';
import { listJobs } from './service.ts';
import { type JobAddresses, jobView } from './view.ts';

export const RECENT_JOBS = 50;

export async function listRecentJobs(
  db: Queryable,
  addresses: JobAddresses,
  caller: { accountId: string },
): Promise<Job[]> {
  return (await listJobs(db, caller.accountId, RECENT_JOBS)).map((j) => jobView(addresses, j));
}
