// MCP tools for posts: inspection, drafting and review, scheduling, and the audit log. Each
// calls the same domain function as REST (core/posts/service.ts).
import { z } from 'zod';
import { AuditEntry, AuditQuery, listAudit } from '../../../core/audit/service.ts';
import { Layout } from '../../../core/designs/schema.ts';
import { layoutOfPost } from '../../../core/designs/service.ts';
import { IdInput } from '../../../core/kernel/ids.ts';
import {
  atLeastOneChange,
  CreatePostInput,
  ListPostsQuery,
  Post,
  PostReceipt,
  PostWarnings,
  RejectPostInput,
  SchedulePostInput,
  UpdatePostFields,
} from '../../../core/posts/schema.ts';
import {
  approvePost,
  createPostWithWarnings,
  favoritePost,
  getPost,
  listPosts,
  QueueSummary,
  queueSummary,
  rejectPost,
  schedulePostWithWarnings,
  unfavoritePost,
  unschedulePost,
  updatePost,
} from '../../../core/posts/service.ts';
import { summarisedInOutputs } from '../jsonSchema.ts';
import { defineTool, READS, WRITES } from '../registry.ts';

const PostId = IdInput.describe('Post id (from list_posts or create_post).');
const ById = z.object({ post_id: PostId }).strict();
// get_post spells a post out; the other tools answer posts the same way and say so.
const PostAsGetPost = summarisedInOutputs(Post, 'A post, as get_post answers it (less layout).');
const PostOut = z.object({ post: PostAsGetPost });

/** A result with its warnings, when there are any. */
const warned = <P>({ post, warnings }: { post: P; warnings: string[] }) => ({
  post,
  ...(warnings.length ? { warnings } : {}),
});

export const POST_TOOLS = [
  defineTool({
    name: 'list_posts',
    title: 'List posts',
    description:
      'Posts of one status for a brand, newest first (drafts by default; at most 100, no paging). Use this tool when you need to: review drafts, see what is scheduled, or reconcile published and failed posts.',
    input: ListPostsQuery,
    output: z.object({ posts: z.array(PostAsGetPost) }),
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => ({ posts: await listPosts(ctx.pool, ctx.principal, args) }),
  }),

  defineTool({
    name: 'get_post',
    title: 'Get a post',
    description:
      'One full post, with its Canvas layout and layout_version when it shows a design, and its publication outcome. Use this tool when you need to: read a post before editing it, or check whether it was published.',
    input: ById,
    output: z.object({
      post: Post.extend({
        layout: Layout.nullable().describe('The native Canvas layout of its design, if any.'),
        layout_version: z.number().int().nullable(),
      }),
    }),
    scope: 'read',
    annotations: READS,
    run: async (ctx, { post_id }) => {
      const post = await getPost(ctx.pool, ctx.principal, post_id);
      return {
        post: { ...post, ...(await layoutOfPost(ctx.pool, ctx.principal, post.design_id)) },
      };
    },
  }),

  defineTool({
    name: 'get_queue_summary',
    title: 'Get queue summary',
    description:
      "Counts of a brand's posts by status and by platform, and its next 10 scheduled posts. Use this tool when you need to: see at a glance how full the schedule is before planning more posts.",
    input: z
      .object({ brand_id: IdInput.optional().describe('Brand. Omitted: the selected brand.') })
      .strict(),
    output: QueueSummary,
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => queueSummary(ctx.pool, ctx.principal, args.brand_id),
  }),

  defineTool({
    name: 'create_post',
    title: 'Create a post',
    description:
      'Creates a draft for one platform (it does not publish). With a future schedule_at (ISO-8601 with offset) the post is scheduled directly. The platform checks its limits (text length, kind, media) and refuses what it cannot carry, saying why. Use this tool when you need to: draft a post for review, or schedule one at a known time.',
    input: CreatePostInput,
    output: z.object({ post: PostReceipt, warnings: PostWarnings.optional() }),
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: false },
    run: async (ctx, args) => warned(await createPostWithWarnings(ctx.pool, ctx.principal, args)),
  }),

  defineTool({
    name: 'update_post',
    title: 'Update a post',
    description:
      "Edits a post's copy, hashtags, headline, kind or attachments. An edited post needs approval again: it returns to draft, and a scheduled post is unscheduled. Published and publishing posts cannot be edited. Use this tool when you need to: revise a draft after review.",
    input: UpdatePostFields.extend({ post_id: PostId }).refine(
      atLeastOneChange,
      'give at least one field to change',
    ),
    output: PostOut,
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: true },
    run: async (ctx, { post_id, ...changes }) => ({
      post: await updatePost(ctx.pool, ctx.principal, post_id, changes),
    }),
  }),

  defineTool({
    name: 'approve_post',
    title: 'Approve a post',
    description:
      'Approves a draft or rejected post (it is not scheduled by this). Use this tool when you need to: mark a reviewed post ready, to schedule later.',
    input: ById,
    output: PostOut,
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: false },
    run: async (ctx, { post_id }) => ({
      post: await approvePost(ctx.pool, ctx.principal, post_id),
    }),
  }),

  defineTool({
    name: 'reject_post',
    title: 'Reject a post',
    description:
      'Rejects a post, with an optional reason and code kept on it; a scheduled post is unscheduled. Published and publishing posts cannot be rejected. Use this tool when you need to: send a draft back with the reason it is not fit to publish.',
    input: RejectPostInput.extend({ post_id: PostId }),
    output: PostOut,
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: true },
    run: async (ctx, { post_id, ...why }) => ({
      post: await rejectPost(ctx.pool, ctx.principal, post_id, why),
    }),
  }),

  defineTool({
    name: 'favorite_post',
    title: 'Star a post',
    description:
      'Stars a post (sets favorited_at); starring is not a status. Use this tool when you need to: mark a post to come back to or reuse.',
    input: ById,
    output: PostOut,
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: true },
    run: async (ctx, { post_id }) => ({
      post: await favoritePost(ctx.pool, ctx.principal, post_id),
    }),
  }),

  defineTool({
    name: 'unfavorite_post',
    title: 'Unstar a post',
    description:
      'Clears the star of a post (favorited_at becomes null). Use this tool when you need to: undo favorite_post.',
    input: ById,
    output: PostOut,
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: true },
    run: async (ctx, { post_id }) => ({
      post: await unfavoritePost(ctx.pool, ctx.principal, post_id),
    }),
  }),

  defineTool({
    name: 'schedule_post',
    title: 'Schedule a post',
    description:
      "Schedules a draft, approved, rejected or failed post (and approves it) at `when`, a future ISO-8601 time with offset, or, when `when` is omitted, at the brand's next free posting slot (09:00, 12:30, 17:00 in the brand's time zone, one post per platform a slot). On a scheduled post it moves the time. Use this tool when you need to: put a reviewed post in the queue.",
    input: SchedulePostInput.extend({ post_id: PostId }),
    output: PostOut.extend({ warnings: PostWarnings.optional() }),
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: false },
    run: async (ctx, { post_id, ...at }) =>
      warned(await schedulePostWithWarnings(ctx.pool, ctx.principal, post_id, at)),
  }),

  defineTool({
    name: 'unschedule_post',
    title: 'Unschedule a post',
    description:
      'Takes a scheduled post out of the queue; it stays approved. Use this tool when you need to: hold a post back without rejecting it.',
    input: ById,
    output: PostOut,
    scope: 'publish',
    annotations: { ...WRITES, idempotentHint: false },
    run: async (ctx, { post_id }) => ({
      post: await unschedulePost(ctx.pool, ctx.principal, post_id),
    }),
  }),

  defineTool({
    name: 'get_audit',
    title: 'Get audit log',
    description:
      "The account's audit log, newest first: every post transition with who made it (key, session, OAuth client or the service itself). Filter by post and time. Use this tool when you need to: find out who changed, scheduled or published a post, and when.",
    input: AuditQuery,
    output: z.object({ entries: z.array(AuditEntry) }),
    scope: 'read',
    annotations: READS,
    run: async (ctx, args) => {
      // A post that is not the account's is not found, rather than an empty history.
      if (args.post_id) await getPost(ctx.pool, ctx.principal, args.post_id);
      return { entries: await listAudit(ctx.pool, ctx.principal.accountId, args) };
    },
  }),
];
