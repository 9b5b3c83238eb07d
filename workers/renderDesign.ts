// Renders one layout version of a design (core/designs/renderJob.ts).
import type { Task } from 'graphile-worker';
import { type RenderDeps, renderDesignJob } from '../core/designs/service.ts';
import { RenderDesignPayload } from '../core/jobs/tasks.ts';

export const renderDesign =
  (deps: RenderDeps): Task =>
  async (payload, helpers) => {
    const job = RenderDesignPayload.parse(payload);
    const result = await renderDesignJob(deps, job);
    helpers.logger.info(`design ${job.design_id} v${job.layout_version}: ${result}`);
  };
