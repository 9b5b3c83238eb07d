// Exports one video design (core/designs/videoExport.ts) as an attempt of its job.
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { exportVideo, type VideoExportDeps } from '../core/designs/videoExport.ts';
import { runJobAttempt } from '../core/jobs/service.ts';
import { ExportVideoPayload } from '../core/jobs/tasks.ts';

export const exportVideoTask =
  (deps: VideoExportDeps & { pool: Pool }): Task =>
  async (payload, helpers) => {
    const job = ExportVideoPayload.parse(payload);
    const outcome = await runJobAttempt(
      deps.pool,
      job.job_id,
      { number: helpers.job.attempts, max: helpers.job.max_attempts },
      (report) => exportVideo(deps, job, report),
      (err) => {
        helpers.logger.error(`export ${job.job_id} failed: ${(err as Error).message}`);
        return 'The export failed unexpectedly on its last attempt; start it again, and if it fails again, tell the operator (the worker log has the details).';
      },
    );
    helpers.logger.info(`export ${job.job_id}: ${outcome}`);
  };
