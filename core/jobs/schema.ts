// The job record clients poll (CONTRACT.md "Jobs and pools"): its kinds, statuses, what
// job_status takes and what it answers.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';

export const JOB_KINDS = [
  'video_export',
  'video_preview',
  'generation',
  'draft_week',
  'history_import',
  'genome',
  'drawing_export',
  'drawing_save',
  'reply',
  'reply_drafts',
  'engagement_action',
  'agent_task',
] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The longest job_status may wait for a change (CONTRACT.md). */
export const MAX_WAIT_S = 20;

export const JobStatusInput = z
  .object({
    job_id: IdInput,
    wait_s: z
      .number()
      .min(0)
      .max(MAX_WAIT_S)
      .default(0)
      .describe(`Seconds to wait for an unfinished job to change (0-${MAX_WAIT_S}).`),
  })
  .strict();
export type JobStatusInput = z.output<typeof JobStatusInput>;

export const Job = z.object({
  job_id: z.string(),
  kind: z.enum(JOB_KINDS),
  status: z.enum(JOB_STATUSES),
  progress: z.number(),
  stage: z.string().nullable(),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  attempts: z.number().int(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type Job = z.infer<typeof Job>;

/** The most poster frames one preview draws (MCP preview_design `times`). */
export const MAX_PREVIEW_TIMES = 8;
