// Brand memory (SPEC.md "Brand memory"): one document per brand holding its voice and style,
// versioned for optimistic concurrency. One zod schema per section: a patch whose result a
// section refuses is itself refused, so the stored document always parses.
import { z } from 'zod';

import { GENOME_RUNS } from '../jobs/tasks.ts';
import { IdInput } from '../kernel/ids.ts';
import { PLATFORMS } from '../kernel/platforms.ts';

const Term = z.string().trim().min(1).max(60);
const Sentence = z.string().trim().min(1).max(300);
const HttpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .describe('An http(s) address.');
const Hashtag = z
  .string()
  .regex(/^#?[\p{L}\p{N}_]{1,100}$/u, 'a hashtag: letters, digits and _, with or without #');

// The engagement inbox's section: keywords watched and the actions rules propose (applied by
// core/engagement/rules.ts).
export const ENGAGEMENT_ACTIONS = ['like', 'repost', 'reply', 'follow'] as const;
export type EngagementAction = (typeof ENGAGEMENT_ACTIONS)[number];
export const INBOUND_KINDS = ['mention', 'reply', 'keyword'] as const;

const Rule = z
  .object({
    on: z
      .enum(INBOUND_KINDS)
      .describe('Which posts: mentions, replies to the brand, keyword matches.'),
    propose: z.array(z.enum(ENGAGEMENT_ACTIONS)).min(1).max(4),
    contains: z
      .array(Term)
      .max(20)
      .optional()
      .describe('Only posts holding one of these terms (as words, ignoring case).'),
  })
  .strict();

export const EngagementRules = z
  .object({
    keywords: z
      .array(Term)
      .max(10)
      .describe('Terms watched on the platforms: a post holding one is a keyword match.'),
    rules: z.array(Rule).max(20),
  })
  .partial()
  .strict()
  .describe('The engagement inbox: keywords watched and the actions rules propose.');
export type EngagementRules = z.infer<typeof EngagementRules>;

export const Voice = z
  .object({
    tone: z.array(Term).max(12).describe('Tone words, e.g. "warm", "direct".'),
    persona: z.string().trim().max(500).describe('Who speaks, in a sentence or two.'),
    do: z.array(Sentence).max(20),
    dont: z.array(Sentence).max(20),
  })
  .partial()
  .strict();

export const Vocabulary = z
  .object({
    preferred: z.array(Term).max(100),
    banned: z.array(Term).max(100).describe('Terms no draft may contain.'),
  })
  .partial()
  .strict();

export const Hashtags = z
  .object({
    always: z.array(Hashtag).max(10).describe('Added to every draft.'),
    never: z.array(Hashtag).max(100).describe('Removed from every draft.'),
  })
  .partial()
  .strict();

export const Audience = z
  .object({ description: z.string().trim().max(1000), segments: z.array(Term).max(20) })
  .partial()
  .strict();

export const Pillar = z
  .object({ name: Term, description: z.string().trim().max(500).optional() })
  .strict();

export const COLOR_ROLES = ['primary', 'secondary', 'accent', 'background', 'text'] as const;

export const Visual = z
  .object({
    colors: z
      .array(
        z
          .object({
            hex: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour as #rrggbb'),
            role: z.enum(COLOR_ROLES),
          })
          .strict(),
      )
      .max(12),
    fonts: z.array(Term).max(6),
    logo_asset_id: z
      .string()
      .regex(/^\d{1,18}$/, 'an image asset id')
      .nullable(),
  })
  .partial()
  .strict();

export const Links = z
  .object({
    site: HttpUrl,
    profiles: z.array(z.object({ platform: Term, url: HttpUrl }).strict()).max(20),
  })
  .partial()
  .strict();

export const MAX_EXAMPLES = 50;

export const Example = z
  .object({
    platform: z.enum(PLATFORMS),
    text: z.string().trim().min(1).max(5000),
    engagement: z.number().int().min(0).optional().describe('Likes, reposts and replies.'),
    url: HttpUrl.optional(),
    posted_at: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

/** What the history import measured of the brand's own posts. */
export const Habits = z
  .object({
    posts_read: z.number().int().min(0),
    typical_length: z.number().int().min(0).describe('Median characters a post.'),
    emoji_per_post: z.number().min(0),
    hashtags_per_post: z.number().min(0),
    top_hashtags: z.array(Hashtag).max(10),
    frequent_terms: z.array(Term).max(15),
    posting_hours_utc: z.array(z.number().int().min(0).max(23)).max(5),
  })
  .partial()
  .strict();
export type Habits = z.infer<typeof Habits>;

/** The sections, in the order gaps are listed. */
export const MEMORY_SECTIONS = [
  'voice',
  'vocabulary',
  'hashtags',
  'audience',
  'pillars',
  'visual',
  'links',
  'examples',
  'habits',
  'platforms',
] as const;
export type MemorySection = (typeof MEMORY_SECTIONS)[number];

/** Each section's schema. */
const SECTIONS = {
  voice: Voice,
  vocabulary: Vocabulary,
  hashtags: Hashtags,
  audience: Audience,
  pillars: z.array(Pillar).max(12),
  visual: Visual,
  links: Links,
  examples: z.array(Example).max(MAX_EXAMPLES),
  habits: Habits,
  platforms: z.array(z.enum(PLATFORMS)).max(PLATFORMS.length).describe('Preferred platforms.'),
} satisfies Record<MemorySection, z.ZodType>;

export const MemoryDoc = z
  .object({
    ...SECTIONS,
    // Not a section of the brand's voice (no confidence, never a gap): the inbox's rules.
    engagement: EngagementRules,
  })
  .partial()
  .strict();
export type MemoryDoc = z.infer<typeof MemoryDoc>;

/** The whole document, as JSON, may be this large. */
export const MAX_MEMORY_BYTES = 256 * 1024;

export const MemoryState = z.object({
  brand_id: z.string(),
  doc: MemoryDoc,
  version: z.number().int().min(1),
  confidence: z.object({
    overall: z.number().min(0).max(1),
    sections: z.record(z.string(), z.number().min(0).max(1)),
  }),
  gaps: z.array(z.object({ section: z.string(), hint: z.string() })),
  updated_at: z.string(),
});
export type MemoryState = z.infer<typeof MemoryState>;

export const MemoryRef = z
  .object({ brand_id: IdInput.optional().describe('The brand; omitted: the selected brand.') })
  .strict();

// An RFC 6902 operation: one object shape for all six (a union of six would say each member
// six times in tools/list), with what each op needs checked after.
const Pointer = z
  .string()
  .max(300)
  .regex(/^(\/[^/]*)*$/, 'a JSON Pointer such as /voice/tone/- (RFC 6901)');
export const PATCH_OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
const NEEDS_VALUE = new Set(['add', 'replace', 'test']);
const NEEDS_FROM = new Set(['move', 'copy']);
export const PatchOp = z
  .object({
    op: z.enum(PATCH_OPS),
    path: Pointer,
    from: Pointer.optional().describe('move and copy: where from.'),
    value: z.unknown().optional().describe('add, replace and test: any JSON value.'),
  })
  .strict()
  .superRefine((o, ctx) => {
    const needs = (member: 'value' | 'from', yes: boolean) => {
      if (yes && o[member] === undefined)
        ctx.addIssue({ code: 'custom', path: [member], message: `required by op ${o.op}` });
      if (!yes && o[member] !== undefined)
        ctx.addIssue({ code: 'custom', path: [member], message: `op ${o.op} takes no ${member}` });
    };
    needs('value', NEEDS_VALUE.has(o.op));
    needs('from', NEEDS_FROM.has(o.op));
  });
export type PatchOp = z.infer<typeof PatchOp>;

export const MAX_PATCH_OPS = 40;

export const MemoryPatchInput = z
  .object({
    brand_id: IdInput.optional().describe('The brand; omitted: the selected brand.'),
    expected_version: z.number().int().min(1).describe('The version you read (GET answers it).'),
    ops: z
      .array(PatchOp)
      .min(1)
      .max(MAX_PATCH_OPS, `at most ${MAX_PATCH_OPS} ops`)
      .describe(
        'RFC 6902 JSON Patch ops, applied in order; one that fails (a missing path, a failed test, a result the schema refuses) is skipped and counted.',
      ),
  })
  .strict();
export type MemoryPatchInput = z.infer<typeof MemoryPatchInput>;

export const MemoryPatchResult = MemoryState.extend({
  refused: z.number().int().describe('How many ops were skipped.'),
  refusals: z.array(z.object({ index: z.number().int(), reason: z.string() })),
});
export type MemoryPatchResult = z.infer<typeof MemoryPatchResult>;

/** POST /v1/brand-memory/import and MCP import_history. */
export const ImportHistoryInput = z
  .object({
    platforms: z
      .array(z.enum(PLATFORMS))
      .min(1)
      .max(PLATFORMS.length)
      .optional()
      .describe('Only these connected platforms; omitted: all.'),
    brand_id: IdInput.optional().describe('The brand; omitted: the selected brand.'),
  })
  .strict();

/** A job as a 202 answers it. */
export const StartedJob = z.object({ job_id: z.string(), status: z.string() });

/** POST /v1/brand-memory/genome. */
export const GenomeInput = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional()
      .describe("The brand's page; omitted: the memory's links.site."),
    run: z.enum(GENOME_RUNS).default('all').describe('What to read (all: both).'),
    brand_id: IdInput.optional().describe('The brand; omitted: the selected brand.'),
  })
  .strict();

export const StartedGenome = StartedJob.extend({
  credits: z.number().int().describe('Credits charged (given back if the job fails).'),
});
