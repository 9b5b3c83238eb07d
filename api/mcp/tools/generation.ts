// MCP repurpose (SPEC.md "MCP", Generation): drafts from a URL, a text or an earlier source,
// over core/generation/service.ts like POST /v1/generate.
import { GenerationResult, RepurposeInput } from '../../../core/generation/schema.ts';
import { generateDrafts } from '../../../core/generation/service.ts';
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
      ),
  }),
];
