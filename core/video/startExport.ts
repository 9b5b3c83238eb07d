// Starts the export of a video design's current layout as a job, or answers the export already
// made or running for that version, as the job record of core/jobs/ with the export's asset
// addresses filled in. Callers: MCP export_video and the dashboard's export.
import { ownedAssets } from '../assets/service.ts';
import { withTransaction } from '../db/pool.ts';
import type { DesignCaller, DesignRef } from '../designs/schema.ts';
import { isVideoLayout, resolveDesign } from '../designs/service.ts';
import type { Job } from '../jobs/schema.ts';
import { type JobDeps, startJob } from '../jobs/service.ts';
import { enqueueVideoExport } from '../jobs/tasks.ts';
import { DomainError } from '../kernel/errors.ts';
import { type JobAddresses, jobView } from './jobView.ts';

/**
 * Queues the export of a video design's current layout_version and answers
 * its job at once. The same design at the same version again answers that job (running or
 * done), unless it failed or its video was deleted: then a new export starts.
 */
export async function startVideoExport(
  deps: JobDeps & JobAddresses,
  caller: DesignCaller,
  ref: DesignRef,
): Promise<Job> {
  const job = await withTransaction(deps.pool, async (tx) => {
    const design = await resolveDesign(tx, caller, ref);
    if (!isVideoLayout(design.layout))
      throw new DomainError(
        'not_a_video',
        `Design ${design.id} is an image design; export_video exports video designs (canvas type "video").`,
      );
    const { job } = await startJob(
      tx,
      {
        accountId: caller.accountId,
        kind: 'video_export',
        subject: `design:${design.id}@${design.layout_version}`,
      },
      (db, jobId) =>
        enqueueVideoExport(db, {
          job_id: jobId,
          design_id: design.id,
          layout_version: design.layout_version,
        }),
      // An export whose video was deleted from the library is made again.
      async (result) =>
        (await ownedAssets(tx, caller.accountId, [String(result.asset_id)])).length === 0,
    );
    return job;
  });
  return jobView(deps)(job);
}
