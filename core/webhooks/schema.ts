// Webhook endpoint inputs and outputs (SPEC.md "Webhook endpoint", CONTRACT.md session routes).
import { z } from 'zod';
import { POST_EVENTS } from './events.ts';

/** Every event a webhook can receive; sql/014 checks `events.type` and endpoints against it. */
export const WEBHOOK_EVENTS = [...POST_EVENTS, 'competitor.breakout'] as const;
export const WebhookEvent = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const MAX_ENDPOINTS = 5;

export const CreateWebhookInput = z
  .object({
    url: z.string().max(2_000).describe('Receiver address: https, resolving to a public address.'),
    events: z
      .array(WebhookEvent)
      .min(1)
      .transform((e) => [...new Set(e)])
      .optional()
      .describe(`Events to receive: ${WEBHOOK_EVENTS.join(', ')}. Omitted: all of them.`),
  })
  .strict();
export type CreateWebhookInput = z.infer<typeof CreateWebhookInput>;

export const WebhookEndpoint = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(WebhookEvent),
  created_at: z.string(),
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const WebhookCreated = WebhookEndpoint.extend({
  secret: z.string().describe('Signing secret. Shown only in this response; store it now.'),
});
export type WebhookCreated = z.infer<typeof WebhookCreated>;

export const DeliveryAttempt = z.object({
  delivery_id: z.string(),
  event: z.string(),
  attempt: z.number().describe('1 to 3.'),
  attempted_at: z.string(),
  duration_ms: z.number(),
  status_code: z.number().nullable().describe('The receiver’s HTTP status, if it answered.'),
  error: z.string().nullable().describe('Why the attempt failed without a status.'),
  delivery_status: z.enum(['pending', 'delivered', 'failed']),
  replay_of: z.string().nullable(),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;
