// Zod schemas of post inputs and outputs. Each input schema is the one definition that REST
// validation, the 422 body, the MCP inputSchema and the OpenAPI document are built from.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import { KINDS, PLATFORMS } from '../kernel/platformNames.ts';
import type { Principal } from '../kernel/principal.ts';

export const POST_STATUSES = [
  'draft',
  'approved',
  'rejected',
  'scheduled',
  'publishing',
  'published',
  'failed',
] as const;
export const PostStatus = z.enum(POST_STATUSES);
export type PostStatus = z.infer<typeof PostStatus>;

/** The operations that move or mark a post; each may start only from some statuses. */
export const POST_ACTIONS = [
  'approve',
  'reject',
  'schedule',
  'unschedule',
  'update',
  'favorite',
] as const;
export type PostAction = (typeof POST_ACTIONS)[number];

export const Platform = z.enum(PLATFORMS).describe(`Platform: ${PLATFORMS.join(', ')}.`);
export const Kind = z
  .enum(KINDS)
  .describe(
    `Post kind: ${KINDS.join(', ')}. Omitted: inferred from the media (text without media).`,
  );

/** A schedule time: ISO-8601 with a UTC offset (a time without one is ambiguous). */
export const ScheduleTime = z.iso
  .datetime({
    offset: true,
    message: 'must be an ISO-8601 time with an offset, e.g. 2026-12-01T09:00:00Z',
  })
  .describe('ISO-8601 time with a UTC offset (Z or +hh:mm), in the future.');

const Body = z.string().max(100_000).describe('Post text.');
const Hashtags = z.string().trim().max(2_000).describe('Hashtags, e.g. "#launch #saas".');
const AssetIds = z
  .array(IdInput)
  .max(50)
  .refine((ids) => new Set(ids).size === ids.length, 'an asset can be attached only once')
  .describe('Owned library assets to attach, in order. Audio assets cannot be attached.');

export const CreatePostInput = z
  .object({
    platform: Platform,
    body: Body,
    hashtags: Hashtags.optional(),
    schedule_at: ScheduleTime.optional().describe(
      'Future ISO-8601 time: the post is scheduled directly. Omitted: a draft.',
    ),
    kind: Kind.optional(),
    asset_ids: AssetIds.optional(),
    brand_id: IdInput.optional().describe(
      'Brand to post for. Omitted: the brand selected in the dashboard.',
    ),
  })
  .strict();
export type CreatePostInput = z.infer<typeof CreatePostInput>;

/** The dashboard's composer: one text for several platforms, and when. */
export const ComposeInput = z
  .object({
    platforms: z
      .array(Platform)
      .min(1)
      .max(PLATFORMS.length)
      .describe('Where the text goes, a post each.'),
    body: Body,
    asset_ids: AssetIds.optional(),
    brand_id: IdInput.optional().describe('Omitted: the selected brand.'),
    when: z
      .enum(['draft', 'at', 'next_free_slot'])
      .default('draft')
      .describe('draft; at: schedule_at; next_free_slot: each platform its own.'),
    schedule_at: ScheduleTime.optional(),
  })
  .strict()
  .refine((v) => (v.when === 'at') === (v.schedule_at !== undefined), {
    path: ['schedule_at'],
    message: 'give schedule_at exactly when `when` is at',
  });
export type ComposeInput = z.infer<typeof ComposeInput>;

/** The fields update_post may change; give at least one. */
export const UpdatePostFields = z
  .object({
    body: Body.optional(),
    hashtags: Hashtags.nullable().optional().describe('New hashtags; null clears them.'),
    headline: z
      .string()
      .trim()
      .max(300)
      .nullable()
      .optional()
      .describe('Title, where the platform shows one.'),
    kind: Kind.optional(),
    asset_ids: AssetIds.optional().describe('The new attachment list (replaces the old one).'),
  })
  .strict();
export const atLeastOneChange = (u: Record<string, unknown>) =>
  Object.entries(u).some(([k, v]) => k !== 'post_id' && v !== undefined);
export const UpdatePostInput = UpdatePostFields.refine(
  atLeastOneChange,
  'give at least one field to change',
);
export type UpdatePostInput = z.infer<typeof UpdatePostInput>;

export const RejectPostInput = z
  .object({
    reason: z.string().trim().max(1_000).optional().describe('Why the post is rejected.'),
    code: z.string().trim().max(100).optional().describe('A short machine-readable reason code.'),
  })
  .strict();
export type RejectPostInput = z.infer<typeof RejectPostInput>;

export const SchedulePostInput = z
  .object({
    when: ScheduleTime.optional().describe('Future time. Omitted: the next free posting slot.'),
  })
  .strict();
export type SchedulePostInput = z.infer<typeof SchedulePostInput>;

export const ListPostsQuery = z
  .object({
    status_filter: PostStatus.default('draft').describe('Status to list (default draft).'),
    limit: z.coerce
      .number()
      .int()
      .default(25)
      .transform((n) => Math.min(100, Math.max(1, n)))
      .describe('Rows to return, clamped to 1-100 (default 25).'),
    brand_id: IdInput.optional().describe('Brand to list. Omitted: the selected brand.'),
  })
  .strict();
export type ListPostsQuery = z.infer<typeof ListPostsQuery>;

const Time = z.string().describe('ISO-8601 timestamp.');

export const Post = z.object({
  id: z.string(),
  uuid: z.string(),
  platform: Platform,
  kind: Kind,
  status: PostStatus,
  body: z.string(),
  hashtags: z.string().nullable(),
  headline: z.string().nullable(),
  scheduled_for: Time.nullable(),
  brand_id: z.string(),
  brand_uuid: z.string().describe('Brand UUID (for MCP create_design).'),
  asset_ids: z.array(z.string()),
  design_id: z
    .string()
    .nullable()
    .describe('The native Canvas design the post shows (its pages are the attachments).'),
  source_id: z.string().nullable().describe('The source a generated draft was written from.'),
  suggested_for: Time.nullable().describe('The slot draft_week suggests (nothing is scheduled).'),
  favorited_at: Time.nullable(),
  approved_at: Time.nullable(),
  rejection: z
    .object({ reason: z.string().nullable(), code: z.string().nullable() })
    .nullable()
    .describe('Set while the post is rejected.'),
  external_post_id: z.string().nullable().describe('Id on the platform, once published.'),
  permalink_url: z.string().nullable(),
  published_at: Time.nullable(),
  error: z.string().nullable().describe('Why the last publication failed.'),
  created_at: Time,
  updated_at: Time,
});
export type Post = z.infer<typeof Post>;

/** A post as the dashboard's pages get it: with what its status allows now. */
export const PostView = Post.extend({
  actions: z
    .array(z.enum(POST_ACTIONS))
    .describe("The operations the post's status allows now (the service's own rules)."),
});
export type PostView = z.infer<typeof PostView>;

export const PostReceipt = Post.pick({
  id: true,
  uuid: true,
  platform: true,
  kind: true,
  status: true,
  body: true,
  hashtags: true,
  scheduled_for: true,
  brand_id: true,
  asset_ids: true,
  created_at: true,
});
export type PostReceipt = z.infer<typeof PostReceipt>;

/**
 * What an answer that made or scheduled a post warns of: the brand cannot publish to its
 * platform now (no connection, or one to reconnect), so it will fail unless connected in time.
 * Present only when there is something to warn of.
 */
export const PostWarnings = z.array(z.string());

export const PostStatusChange = Post.pick({ id: true, status: true });

/** A post as a design edit sees it: what it shows and whether it may still change. */
export type DesignPostRow = {
  id: string;
  status: PostStatus;
  design_id: string | null;
  platform: z.infer<typeof Platform>;
  body: string;
};

/** Who calls a post operation: the account, its selected brand and the credential used. */
export type Caller = Pick<Principal, 'accountId' | 'selectedBrandId' | 'credential'>;
