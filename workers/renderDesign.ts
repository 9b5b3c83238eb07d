// Renders one layout version of a design (core/designs/render.ts).
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { renderDesignJob } from '../core/designs/render.ts';
import { RenderDesignPayload } from '../core/jobs/tasks.ts';
import type { Storage } from '../core/storage/storage.ts';

export const renderDesign =
  (deps: { pool: Pool; storage: Storage }): Task =>
  async (payload, helpers) => {
    const job = RenderDesignPayload.parse(payload);
    const result = await renderDesignJob(deps, job);
    helpers.logger.info(`design ${job.design_id} v${job.layout_version}: ${result}`);
  };
