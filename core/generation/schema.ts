// Inputs and answers of generation: POST /v1/generate and MCP repurpose (SPEC.md).
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import { PLATFORMS } from '../kernel/platforms.ts';

/** Source text a request may carry (characters); a URL's article is capped when extracted. */
export const MAX_INPUT_TEXT = 100_000;

const Url = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'no user name or password in the address')
  .describe("An article's address.");
const Text = z.string().trim().min(1).max(MAX_INPUT_TEXT).describe('The source text.');
const Instruction = z
  .string()
  .trim()
  .max(2000)
  .describe(
    "What to stress or how to write (the model generator reads it; the built-in one doesn't).",
  );

const exactlyOne =
  (keys: readonly string[]) => (v: Record<string, unknown>, ctx: z.core.$RefinementCtx) => {
    const given = keys.filter((k) => v[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: 'custom',
        path: given.length ? [given[1]!] : [],
        message: `give exactly one of ${keys.join(', ')}${given.length ? `; got ${given.join(' and ')}` : ''}`,
      });
  };

/** POST /v1/generate: no brand_id (the selected brand). */
export const GenerateInput = z
  .object({ url: Url.optional(), text: Text.optional(), instruction: Instruction.optional() })
  .strict()
  .superRefine(exactlyOne(['url', 'text']));
export type GenerateInput = z.infer<typeof GenerateInput>;

/** MCP repurpose. */
export const RepurposeInput = z
  .object({
    url: Url.optional(),
    text: Text.optional(),
    source_id: IdInput.optional().describe('An earlier source.'),
    platforms: z
      .array(z.enum(PLATFORMS))
      .min(1)
      .max(PLATFORMS.length)
      .optional()
      .describe(
        "Omitted: the brand's connected platforms, else its memory's, else x, linkedin, bluesky.",
      ),
    instruction: Instruction.optional(),
    brand_id: IdInput.optional().describe('The brand; omitted: the selected brand.'),
  })
  .strict()
  .superRefine(exactlyOne(['url', 'text', 'source_id']));
export type RepurposeInput = z.infer<typeof RepurposeInput>;

export const GenerationResult = z.object({
  source_id: z.string(),
  post_ids: z.array(z.string()).describe('The drafts, one per platform.'),
  skipped_platforms: z.array(z.string()).describe('Media-only platforms, left out.'),
});
export type GenerationResult = z.infer<typeof GenerationResult>;

/** MCP draft_week: a batch job answering at once. */
export const DraftWeekInput = z
  .object({
    brand_id: IdInput.describe('The brand.'),
    start_date: z.iso
      .date()
      .refine((d) => d >= '2000-01-01' && d <= '2099-12-24', 'a date between 2000 and 2099')
      .optional()
      .describe('First day; default: next Monday.'),
    platforms: z.array(z.enum(PLATFORMS)).min(1).max(PLATFORMS.length).optional(),
    posts_per_day: z.number().int().min(1).max(3).default(1),
    themes: z.array(z.string().trim().min(1).max(300)).min(1).max(21).optional(),
    source_ids: z.array(IdInput).min(1).max(10).optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.themes && v.source_ids)
      ctx.addIssue({
        code: 'custom',
        path: ['source_ids'],
        message: 'give themes or source_ids, not both',
      });
  });
export type DraftWeekInput = z.infer<typeof DraftWeekInput>;
