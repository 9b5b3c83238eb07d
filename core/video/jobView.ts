// A job as clients see it (job_status, the dashboard's jobs page): a result naming an asset
// (a video export's) gains the asset's served and signed addresses. Video shapes it and hands
// it to core/jobs/, which reads jobs of every kind and knows nothing of assets.
import { signAssetUrl } from '../assets/service.ts';
import type { Job } from '../jobs/schema.ts';
import type { JobView } from '../jobs/service.ts';

export type JobAddresses = {
  publicBaseUrl: string;
  /** Signs the asset's address; without it, `signed_url` is null. */
  urlKey?: Buffer;
};

export const jobView =
  (deps: JobAddresses): JobView =>
  (job: Job): Job => {
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
  };
