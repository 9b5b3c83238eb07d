// MCP repurpose (SPEC.md "MCP", Generation): drafts from a URL, a text or an earlier source,
// over core/generation/service.ts like POST /v1/generate.
import {
  DraftWeekInput,
  GenerationResult,
  RepurposeInput,
} from '../../../core/generation/schema.ts';
import { generateDrafts, startDraftWeek } from '../../../core/generation/service.ts';
import { Job } from '../../../core/jobs/schema.ts';
import { summarisedInOutputs } from '../jsonSchema.ts';
import { defineTool } from '../registry.ts';

export const GENERATION_TOOLS = [
  defineTool({
    name: 'repurpose',
    title: 'Repurpose a source',
    description:
      "Drafts, one per platform in the brand memory's rules, from a URL, a text or a source_id. Use this tool when you need to: turn an article or notes into posts.",
    input: RepurposeInput,
    output: GenerationResult,
    scope: 'generate',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
    run: async (ctx, args) =>
      generateDrafts(
        {
          pool: ctx.pool,
          notifications: ctx.renders.notifications,
          timeoutMs: ctx.generateTimeoutMs,
        },
        ctx.principal,
        args,
        // Progress notifications for clients that sent a progressToken and accept SSE.
        (progress, stage) => ctx.progress(progress, 1, stage),
      ),
  }),

  defineTool({
    name: 'draft_week',
    title: 'Draft a week',
    description:
      "A week of drafts per platform from themes, source_ids or the memory's pillars, each with a suggested_for slot (nothing is scheduled); answers a job at once. Use this tool when you need to: plan a week of posts.",
    input: DraftWeekInput,
    output: summarisedInOutputs(
      Job.clone(),
      'The job, as job_status answers it; its result: start_date, post_ids, skipped_platforms.',
    ),
    scope: 'generate',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
    run: async (ctx, args) => startDraftWeek(ctx.pool, ctx.principal, args),
  }),
];
