// Starting a video export (MCP export_video) and reading any job (MCP job_status) as the API
// answers them: the job record of core/jobs/, with an export's asset addresses filled in.
import { signAssetUrl } from '../assets/signedUrls.ts';
import type { Notifications } from '../db/notifications.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { DomainError } from '../errors.ts';
import type { Job, JobStatusInput } from '../jobs/schema.ts';
import { jobStatus, startJob } from '../jobs/service.ts';
import { enqueueVideoExport } from '../jobs/tasks.ts';
import type { DesignRef } from './schema.ts';
import type { DesignCaller } from './service.ts';
import { resolveDesign } from './standalone.ts';
import { isVideoLayout } from './videoLayout.ts';

export type JobDeps = {
  pool: Pool;
  notifications: Notifications;
  publicBaseUrl: string;
  /** Signs the exported asset's address; without it, `signed_url` is null. */
  urlKey?: Buffer;
};

/** A job as clients see it: an export's result gains the asset's served and signed addresses. */
function withAddresses(deps: Pick<JobDeps, 'publicBaseUrl' | 'urlKey'>, job: Job): Job {
  const assetId = job.result?.asset_id;
  if (typeof assetId !== 'string') return job;
  return {
    ...job,
    result: {
      ...job.result,
      url: `${deps.publicBaseUrl}/v1/assets/${assetId}/content`,
      signed_url: deps.urlKey ? signAssetUrl(deps.publicBaseUrl, deps.urlKey, assetId) : null,
    },
  };
}

/**
 * MCP export_video: queues the export of a video design's current layout_version and answers
 * its job at once. The same design at the same version again answers that job (running or
 * done), unless it failed: then a new export starts.
 */
export async function startVideoExport(
  deps: JobDeps,
  caller: DesignCaller,
  ref: DesignRef,
): Promise<Job> {
  const job = await withTransaction(deps.pool, async (tx) => {
    const design = await resolveDesign(tx, caller, ref);
    if (!isVideoLayout(design.layout))
      throw new DomainError(
        422,
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
    );
    return job;
  });
  return withAddresses(deps, job);
}

/** MCP job_status: the caller's job, waiting up to `wait_s` for a change. */
export async function getJobStatus(
  deps: JobDeps,
  caller: { accountId: string },
  input: JobStatusInput,
): Promise<Job> {
  return withAddresses(deps, await jobStatus(deps, caller, input));
}
