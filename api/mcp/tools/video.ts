// MCP tools for editable video (SPEC.md "MCP", Editable video): export_video starts an export
// job, job_status reads any job. Each calls one domain function of core/designs/videoJobs.ts.
import { DesignRef } from '../../../core/designs/schema.ts';
import { getJobStatus, startVideoExport } from '../../../core/designs/videoJobs.ts';
import { Job, JobStatusInput } from '../../../core/jobs/schema.ts';
import { summarisedInOutputs } from '../jsonSchema.ts';
import { defineTool, type ToolContext } from '../registry.ts';

const jobDeps = (ctx: ToolContext) => ({
  pool: ctx.pool,
  // The process's one LISTEN connection (core/db/notifications.ts), shared with render waits.
  notifications: ctx.renders.notifications,
  publicBaseUrl: ctx.media.publicBaseUrl,
  urlKey: ctx.media.urlKey,
});

export const VIDEO_TOOLS = [
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
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: async (ctx, args) => getJobStatus(jobDeps(ctx), ctx.principal, args),
  }),
];
