// The audit log: reading it (MCP get_audit: the account's post transitions with their
// actors), and the entries other concepts record that are not a post's status change.
import type { Queryable } from '../db/pool.ts';
import { recordAudit } from './db.ts';
import type { AuditEntry, AuditQuery, AuditRecord } from './schema.ts';

// Kept for the callers that import the schemas from here.
export { AuditEntry, AuditQuery } from './schema.ts';

export async function listAudit(
  db: Queryable,
  accountId: string,
  q: AuditQuery,
): Promise<AuditEntry[]> {
  const { rows } = await db.query(
    `select id, post_id, action, from_status, to_status, actor_kind, actor_id, detail, created_at
     from audit_log
     where account_id = $1 and ($2::bigint is null or post_id = $2)
       and ($3::timestamptz is null or created_at >= $3)
       and ($4::timestamptz is null or created_at < $4)
     order by id desc limit $5`,
    [accountId, q.post_id ?? null, q.since ?? null, q.until ?? null, q.limit],
  );
  return rows.map((r) => ({
    id: r.id,
    post_id: r.post_id,
    action: r.action,
    from_status: r.from_status,
    to_status: r.to_status,
    actor: { kind: r.actor_kind, id: r.actor_id },
    detail: r.detail,
    created_at: r.created_at.toISOString(),
  }));
}

/**
 * Records what was done that is not a post's status change (a reply asked for or sent, an
 * action run), in the caller's transaction: `postId` is the brand post it concerns, if any;
 * `detail` says the rest.
 */
export async function recordAction(db: Queryable, entry: AuditRecord): Promise<void> {
  await recordAudit(db, entry);
}
