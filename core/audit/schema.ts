// What reading the audit log takes and answers.
import { z } from 'zod';
import { IdInput } from '../kernel/ids.ts';
import type { Actor } from './actor.ts';

export const AuditQuery = z
  .object({
    post_id: IdInput.optional().describe('Only this post.'),
    since: z.iso.datetime({ offset: true }).optional().describe('Entries at or after this time.'),
    until: z.iso.datetime({ offset: true }).optional().describe('Entries before this time.'),
    limit: z.number().int().min(1).max(200).default(50).describe('Rows, newest first (1-200).'),
  })
  .strict();
export type AuditQuery = z.infer<typeof AuditQuery>;

export const AuditEntry = z.object({
  id: z.string(),
  post_id: z.string().nullable(),
  action: z.string(),
  from_status: z.string().nullable(),
  to_status: z.string().nullable(),
  actor: z.object({ kind: z.string(), id: z.string().nullable() }),
  detail: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export type { Actor } from './actor.ts';

/** An entry that is not a post's status change: `postId` the brand post it concerns, if any. */
export type AuditRecord = {
  accountId: string;
  postId: string | null;
  action: string;
  actor: Actor;
  detail: Record<string, unknown>;
};
export { actorOf } from './actor.ts';
