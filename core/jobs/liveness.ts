// Worker liveness: a worker process heartbeats the ids its jobs are locked under (its pool's
// and its workers'); any process sweeps ids whose heartbeat stopped and releases their jobs
// (Graphile Worker's force_unlock_workers), so a job left locked by a killed worker runs again
// within seconds. Jobs must therefore be safe to run again (publication is, by design).
import os from 'node:os';
import type { Pool } from '../db/pool.ts';

export async function heartbeat(pool: Pool, workerIds: string[]): Promise<void> {
  if (!workerIds.length) return;
  await pool.query(
    `insert into worker_heartbeats (worker_id, pid, host)
     select unnest($1::text[]), $2, $3
     on conflict (worker_id) do update set last_seen_at = now()`,
    [workerIds, process.pid, os.hostname()],
  );
}

/** A clean stop: the ids are gone, nothing to sweep. */
export async function forgetWorkers(pool: Pool, workerIds: string[]): Promise<void> {
  if (!workerIds.length) return;
  await pool.query('delete from worker_heartbeats where worker_id = any($1::text[])', [workerIds]);
}

/**
 * Releases the jobs of every worker silent for `staleAfterMs`; returns those worker ids. With
 * `orphans`, also those of a worker that locked a job that long ago and never beat: one killed
 * between taking its first job and its first heartbeat (a scan of the locked jobs, so the
 * caller asks it now and then, not at every beat).
 */
export async function sweepDeadWorkers(
  pool: Pool,
  staleAfterMs: number,
  { orphans = false } = {},
): Promise<string[]> {
  const { rows } = await pool.query<{ ids: string[] | null }>(
    `with dead as (
       delete from worker_heartbeats
       where last_seen_at < now() - $1 * interval '1 millisecond'
       returning worker_id
     ), orphaned as (
       select distinct j.locked_by as worker_id
       from graphile_worker.jobs j
       where $2 and j.locked_by is not null
         and j.locked_at < now() - $1 * interval '1 millisecond'
         and not exists (select 1 from worker_heartbeats h where h.worker_id = j.locked_by)
     )
     select array_agg(worker_id) as ids
     from (select worker_id from dead union select worker_id from orphaned) w`,
    [staleAfterMs, orphans],
  );
  const ids = rows[0]?.ids ?? [];
  await unlockWorkers(pool, ids);
  return ids;
}

/** Hands the jobs locked under `workerIds` back to the queue (Graphile Worker's public API). */
async function unlockWorkers(pool: Pool, workerIds: string[]): Promise<void> {
  if (!workerIds.length) return;
  await pool.query('select graphile_worker.force_unlock_workers($1::text[])', [workerIds]);
}

/**
 * Releases the jobs of workers this process has stopped for good (runners stopped during a
 * database outage could not hand their jobs back) and forgets their heartbeats.
 */
export async function releaseWorkers(pool: Pool, workerIds: string[]): Promise<void> {
  await unlockWorkers(pool, workerIds);
  await forgetWorkers(pool, workerIds);
}
