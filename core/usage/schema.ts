// The usage concept's types: what get_usage and the dashboard's usage page answer.
import { z } from 'zod';
import { Plan } from '../kernel/plans.ts';

export const Usage = z.object({
  plan: Plan,
  request_budget: z.object({
    limit: z.number().describe('Requests a minute.'),
    used: z.number(),
    remaining: z.number(),
    resets_at: z.string(),
  }),
  storage: z.object({
    used_bytes: z.number().describe('Bytes held in the media library.'),
    reserved_bytes: z
      .number()
      .describe('Bytes held for unfinished chunked uploads until they finish or expire.'),
    quota_bytes: z.number().describe('The plan’s storage quota.'),
  }),
  credits: z.number(),
  posts_by_status: z.record(z.string(), z.number()),
});
export type Usage = z.infer<typeof Usage>;
