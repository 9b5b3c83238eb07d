// MCP tools for editable video (SPEC.md "MCP", Editable video): list_video_templates and
// use_video_template (core/video/videoTemplates.ts, useVideoTemplate.ts), export_video
// (core/video/startExport.ts) and job_status (core/jobs/service.ts, an export's asset
// addresses added by core/video/jobView.ts). Each calls one domain function.

import { z } from 'zod';
import { DesignRef } from '../../../core/designs/schema.ts';
import { Job, JobStatusInput } from '../../../core/jobs/schema.ts';
import { getJobStatus } from '../../../core/jobs/service.ts';
import {
  ListVideoTemplatesQuery,
  UsedVideoTemplate,
  UseVideoTemplateInput,
  VideoTemplateSummary,
} from '../../../core/video/schema.ts';
import {
  jobView,
  listVideoTemplates,
  startVideoExport,
  useVideoTemplate,
} from '../../../core/video/service.ts';
import { summarisedInOutputs } from '../jsonSchema.ts';
import { defineTool, READS, type ToolContext, TRUNCATION } from '../registry.ts';

const jobDeps = (ctx: ToolContext) => ({
  pool: ctx.pool,
  // The process's one LISTEN connection (core/db/notifications.ts), shared with render waits.
  notifications: ctx.renders.notifications,
  publicBaseUrl: ctx.media.publicBaseUrl,
  urlKey: ctx.media.urlKey,
});

export const VIDEO_TOOLS = [
  defineTool({
    name: 'list_video_templates',
    title: 'List video templates',
    description:
      'Video templates and their slots (premium: video_templates feature). Use this tool when you need to: pick one for use_video_template.',
    input: ListVideoTemplatesQuery,
    output: z.object({ templates: z.array(VideoTemplateSummary), ...TRUNCATION }),
    scope: 'read',
    annotations: READS,
    run: async (_ctx, args) => listVideoTemplates(args),
  }),

  defineTool({
    name: 'use_video_template',
    title: 'Use a video template',
    description:
      'A video design from a template (slots filled, empty ones removed) and a draft video post showing it. Use this tool when you need to: start a video post; then edit_layers and export_video.',
    input: UseVideoTemplateInput,
    output: UsedVideoTemplate,
    scope: 'publish',
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    run: async (ctx, args) => useVideoTemplate(ctx, ctx.principal, args),
  }),

  defineTool({
    name: 'export_video',
    title: 'Export a video',
    description:
      'Starts exporting a video design (by post_id or design_id) to an MP4 (H.264/AAC) and answers its job at once; follow it with job_status. The same design at the same layout_version again answers the same job instead of encoding again. When it succeeds, the video asset is attached to every unpublished post of the design. Use this tool when you need to: turn a video design into a file to publish.',
    input: DesignRef,
    output: summarisedInOutputs(Job, 'A job, as job_status answers it.'),
    scope: 'generate',
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    run: async (ctx, ref) => startVideoExport(jobDeps(ctx), ctx.principal, ref),
  }),

  defineTool({
    name: 'job_status',
    title: 'Job status',
    description:
      'A job: status, progress 0-1, stage, result on success (an export: asset_id, url, signed_url, duration_s, width, height, bytes), error on failure. With wait_s an unfinished job answers when it changes: poll with it, not in a tight loop. Use this tool when you need to: follow slow work you started.',
    input: JobStatusInput,
    output: Job,
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => getJobStatus(jobDeps(ctx), ctx.principal, args, jobView(ctx.media)),
  }),
];
