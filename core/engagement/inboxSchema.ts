// The engagement inbox (SPEC.md MCP "Engagement inbox"; issue 21, item 3): what
// list_engagement_inbox, approve_engagement_action and dismiss_engagement_action take and
// answer. The post each action concerns is a third party's: its words only under `untrusted`.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import { PLATFORMS } from '../kernel/platforms.ts';
import { ENGAGEMENT_ACTIONS, INBOUND_KINDS } from './rules.ts';
import { MAX_REPLY_TEXT, UntrustedPost } from './schema.ts';

export const ACTION_STATUSES = ['proposed', 'approved', 'dismissed'] as const;

export const ListInboxInput = z
  .object({
    brand_id: IdInput.optional().describe('Omitted: the selected brand.'),
    status: z.enum(ACTION_STATUSES).default('proposed'),
    limit: z.number().int().min(1).max(100).default(25).describe('Rows, newest first (1-100).'),
    cursor: IdInput.optional().describe('next_cursor of the previous page.'),
  })
  .strict();
export type ListInboxInput = z.infer<typeof ListInboxInput>;

export const InboxAction = z.object({
  id: z.string(),
  action: z.enum(ENGAGEMENT_ACTIONS),
  status: z.enum(ACTION_STATUSES),
  draft: z.string().nullable().describe('For a reply: the drafted text approve sends.'),
  created_at: z.string(),
  decided_at: z.string().nullable(),
  post: z.object({
    id: z.string().describe('The inbound post (a reply suggestion for mentions and replies).'),
    platform: z.enum(PLATFORMS),
    kind: z.enum(INBOUND_KINDS),
    posted_at: z.string(),
    untrusted: UntrustedPost,
  }),
  outcome: z
    .object({
      state: z.enum(['sending', 'sent', 'failed']),
      job_id: z.string(),
      external_id: z.string().nullable(),
      error: z.string().nullable(),
    })
    .nullable()
    .describe('Once approved: how its job went.'),
});
export type InboxAction = z.infer<typeof InboxAction>;

export const Inbox = z.object({
  actions: z.array(InboxAction),
  next_cursor: z.string().nullable(),
});
export type Inbox = z.infer<typeof Inbox>;

const ActionId = IdInput.describe('An inbox action (from list_engagement_inbox).');

export const ApproveActionInput = z
  .object({
    action_id: ActionId,
    text: z
      .string()
      .trim()
      .min(1)
      .max(MAX_REPLY_TEXT)
      .optional()
      .describe("A reply's text instead of its draft (reply actions only)."),
  })
  .strict();
export type ApproveActionInput = z.infer<typeof ApproveActionInput>;

export const DismissActionInput = z.object({ action_id: ActionId }).strict();
export type DismissActionInput = z.infer<typeof DismissActionInput>;
