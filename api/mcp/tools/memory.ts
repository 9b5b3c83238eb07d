// MCP tools for brand memory (SPEC.md "MCP", Brand memory): get_brand_memory,
// update_brand_memory and import_history, over core/brandMemory/ like GET, PATCH and POST
// /v1/brand-memory(/import).

import {
  ImportHistoryInput,
  MemoryPatchInput,
  MemoryPatchResult,
  MemoryRef,
  MemoryState,
  StartedJob,
} from '../../../core/brandMemory/schema.ts';
import {
  getBrandMemory,
  patchBrandMemory,
  startHistoryImport,
} from '../../../core/brandMemory/service.ts';
import { summarisedInOutputs } from '../jsonSchema.ts';
import { defineTool, READS } from '../registry.ts';

/** The state in one sentence: its full schema would cost tools/list several KB. */
const State = summarisedInOutputs(
  MemoryState.clone(),
  'brand_id; version; updated_at; confidence {overall, sections {name: 0-1}}; gaps [{section, hint}]; doc, its sections each optional: voice {tone[], persona, do[], dont[]}, vocabulary {preferred[], banned[]}, hashtags {always[] ≤ 10, never[]}, audience {description, segments[]}, pillars [{name, description}], visual {colors [{hex, role: primary|secondary|accent|background|text}], fonts[], logo_asset_id}, links {site, profiles [{platform, url}]}, examples [{platform, text, engagement, url, posted_at}] ≤ 50, habits {posts_read, typical_length, emoji_per_post, hashtags_per_post, top_hashtags[], frequent_terms[], posting_hours_utc[]}, platforms [] (unknown keys refused).',
);

export const MEMORY_TOOLS = [
  defineTool({
    name: 'get_brand_memory',
    title: 'Get brand memory',
    description:
      "A brand's memory with its version, confidence per section and gaps. Use this tool when you need to: write in the brand's voice, or see what it still lacks.",
    input: MemoryRef,
    output: State,
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => getBrandMemory(ctx.pool, ctx.principal, args.brand_id),
  }),

  defineTool({
    name: 'update_brand_memory',
    title: 'Update brand memory',
    description:
      'Applies up to 40 RFC 6902 JSON Patch ops in order under expected_version (from get_brand_memory); failing ops are skipped and reported, the rest make one version. Use this tool when you need to: record what you learned about the brand.',
    input: MemoryPatchInput,
    output: summarisedInOutputs(
      MemoryPatchResult.clone(),
      'The new state as get_brand_memory answers it, plus refused (how many ops were skipped) and refusals [{index, reason}].',
    ),
    scope: 'generate',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    run: async (ctx, args) => patchBrandMemory(ctx.pool, ctx.principal, args),
  }),

  defineTool({
    name: 'import_history',
    title: 'Import post history',
    description:
      "Reads up to 200 recent posts of each connected account into the brand memory (best ones as examples, measured habits); answers job_id at once. Use this tool when you need to: learn a brand's voice from what it posted.",
    input: ImportHistoryInput,
    output: StartedJob,
    scope: 'generate',
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
    run: async (ctx, args) => {
      const job = await startHistoryImport(ctx.pool, ctx.principal, args);
      return { job_id: job.job_id, status: job.status };
    },
  }),
];
