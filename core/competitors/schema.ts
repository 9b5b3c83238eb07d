// Tracked competitor profiles (CONTRACT.md "More session routes": GET/POST/DELETE
// /competitors): a platform and a handle, at most MAX_COMPETITORS a brand.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import { PLATFORMS } from '../kernel/platforms.ts';

export const MAX_COMPETITORS = 20;
/** The breakout rule unless the profile has its own. */
export const DEFAULT_RATIO = 3;
export const DEFAULT_FLOOR = 20;

const Ratio = z
  .number()
  .min(1)
  .max(1000)
  .multipleOf(0.01)
  .describe('A post breaks out at this many times the median of the previous 20 (default 3).');
const Floor = z
  .number()
  .int()
  .min(1)
  .max(1_000_000_000)
  .describe('…and with at least this engagement, likes + reposts + replies (default 20).');

/**
 * The platforms whose profiles a watch reads (their connectors' profilePosts); a profile
 * elsewhere would never be read, so it is refused rather than counted against the 20.
 */
export const WATCHED_PLATFORMS = ['bluesky', 'mastodon'] as const;

/** A handle as given, less a leading @ and surrounding space, in lower case. */
const Handle = z
  .string()
  .trim()
  .transform((h) => h.replace(/^@/, '').toLowerCase())
  .pipe(
    z
      .string()
      .min(1)
      .max(200)
      .regex(
        /^[\p{L}\p{N}._@:-]+$/u,
        'must be a handle, not an address: letters, digits, . _ - @ : ("name.bsky.social", "name@instance.social", a did:plc)',
      ),
  )
  .describe(
    'The profile: "name.bsky.social" or a DID on Bluesky, "name@instance.social" on Mastodon (a leading @ is dropped).',
  );

export const AddCompetitorInput = z
  .object({
    brand_id: IdInput.optional().describe('Omitted: the selected brand.'),
    platform: z
      .enum(WATCHED_PLATFORMS)
      .describe(`Where the profile is: ${WATCHED_PLATFORMS.join(', ')} (the platforms watched).`),
    handle: Handle,
    ratio: Ratio.default(DEFAULT_RATIO),
    floor: Floor.default(DEFAULT_FLOOR),
  })
  .strict();
export type AddCompetitorInput = z.infer<typeof AddCompetitorInput>;

export const ListCompetitorsQuery = z
  .object({ brand_id: IdInput.optional().describe('Omitted: the selected brand.') })
  .strict();
export type ListCompetitorsQuery = z.infer<typeof ListCompetitorsQuery>;

export const Competitor = z.object({
  id: z.string(),
  brand_id: z.string(),
  platform: z.enum(PLATFORMS),
  handle: z.string(),
  ratio: z.number(),
  floor: z.number().int(),
  created_at: z.string(),
});
export type Competitor = z.infer<typeof Competitor>;
