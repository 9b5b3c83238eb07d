// One attempt of one webhook delivery (core/webhooks/delivery.ts).
import type { Task } from 'graphile-worker';
import type { Pool } from '../core/db/pool.ts';
import { DeliverWebhookPayload } from '../core/jobs/tasks.ts';
import type { OutboundPolicy } from '../core/outbound/guard.ts';
import { deliverWebhook } from '../core/webhooks/service.ts';

export const deliverWebhookTask =
  (deps: { pool: Pool; outbound: OutboundPolicy }): Task =>
  async (payload, helpers) => {
    const job = DeliverWebhookPayload.parse(payload);
    const result = await deliverWebhook(deps.pool, deps.outbound, job);
    helpers.logger.info(`delivery ${job.delivery_id} attempt ${job.attempt}: ${result}`);
  };
