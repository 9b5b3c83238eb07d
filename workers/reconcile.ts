// Every minute: work a killed worker left half done, with no attempt to come, is ended with
// a reason (posts left `publishing`, client jobs), so nothing waits forever; a pending webhook
// delivery with no job left is queued again (delivery is at least once), unless it has been
// sent as often as it may be or its job ran out of runs: then it fails with a reason; poster
// frames and drawing exports past their hour are deleted.
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { dropOldExports, EXPORT_KEEP_HOURS } from '../core/drawings/service.ts';
import { deleteOldPreviews, failAbandonedJobs } from '../core/jobs/service.ts';
import { CronPayload } from '../core/jobs/tasks.ts';
import { failAbandonedPublications } from '../core/posts/service.ts';
import type { Storage } from '../core/storage/storage.ts';
import { reconcileStrandedDeliveries } from '../core/webhooks/service.ts';

export const reconcile =
  ({ pool, storage }: { pool: Pool; storage?: Storage }): Task =>
  async (payload, helpers) => {
    CronPayload.parse(payload);
    const publications = await failAbandonedPublications(pool);
    if (publications) helpers.logger.warn(`failed ${publications} abandoned publications`);
    const jobs = await failAbandonedJobs(pool);
    if (jobs) helpers.logger.warn(`failed ${jobs} abandoned jobs`);
    const deliveries = await reconcileStrandedDeliveries(pool);
    if (deliveries.requeued)
      helpers.logger.warn(`queued ${deliveries.requeued} stranded webhook deliveries again`);
    // The account's log gives the reason; the jobs' last errors are for the operator alone.
    if (deliveries.failed.length)
      helpers.logger.error(
        `failed ${deliveries.failed.length} webhook deliveries whose runs never recorded an outcome`,
        { deliveries: deliveries.failed },
      );
    await deleteOldPreviews(pool);
    if (storage) await dropOldExports({ pool, storage }, { hours: EXPORT_KEEP_HOURS });
  };
