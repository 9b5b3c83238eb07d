// SQL that writes the audit log (sql/002_posts.sql) beside a post's own statements (which
// write their transitions in the same statement, core/posts/db.ts).
import type { Queryable } from '../db/pool.ts';
import type { AuditRecord } from './schema.ts';

/**
 * Writes one entry that is not a post's status change (a reply asked for or sent): `post_id`
 * is the brand post it concerns, if any; `detail` says the rest.
 */
export async function recordAudit(db: Queryable, e: AuditRecord): Promise<void> {
  await db.query(
    `insert into audit_log (account_id, post_id, action, actor_kind, actor_id, detail)
     values ($1, $2, $3, $4, $5, $6)`,
    [e.accountId, e.postId, e.action, e.actor.kind, e.actor.id, JSON.stringify(e.detail)],
  );
}
