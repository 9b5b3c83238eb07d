// SQL for the engagement inbox's actions (sql/032_inbound.sql, engagement_actions): what the
// brand's rules propose on inbound posts (db.ts keeps the posts), and each one's decision.
import type { Queryable } from '../db/pool.ts';
import { COLUMNS, type SuggestionRow } from './db.ts';

export type ActionRow = {
  id: string;
  account_id: string;
  brand_id: string;
  item_id: string;
  action: 'like' | 'repost' | 'reply' | 'follow';
  draft: string | null;
  status: 'proposed' | 'approved' | 'dismissed';
  job_id: string | null;
  created_at: Date;
  decided_at: Date | null;
};

const ACTION_COLUMNS = `a.id::text, a.account_id::text, a.brand_id::text, a.item_id::text, a.action,
  a.draft, a.status, a.job_id::text, a.created_at, a.decided_at`;

/** Adds the proposed actions (one of each kind an item: a repeat is ignored). */
export async function insertProposals(
  db: Queryable,
  proposals: {
    accountId: string;
    brandId: string;
    itemId: string;
    action: string;
    draft: string | null;
  }[],
): Promise<number> {
  if (!proposals.length) return 0;
  const { rowCount } = await db.query(
    `insert into engagement_actions (account_id, brand_id, item_id, action, draft)
     select x."accountId", x."brandId", x."itemId", x.action, x.draft
     from jsonb_to_recordset($1::jsonb) as x("accountId" bigint, "brandId" bigint,
       "itemId" bigint, action text, draft text)
     on conflict (item_id, action) do nothing`,
    [JSON.stringify(proposals)],
  );
  return rowCount ?? 0;
}

/** A page of a brand's inbox actions of `status`, newest first, each with its item. */
export async function listActionRows(
  db: Queryable,
  q: { accountId: string; brandId: string; status: string; before?: string; limit: number },
): Promise<(ActionRow & { item: SuggestionRow })[]> {
  const { rows } = await db.query(
    `select ${ACTION_COLUMNS}, (select to_jsonb(x) from (select ${COLUMNS}, null as post_body
        from inbound_items i where i.id = a.item_id) x) as item
     from engagement_actions a
     where a.brand_id = $1 and a.account_id = $2 and a.status = $3
       and ($4::bigint is null or a.id < $4)
     order by a.id desc limit $5`,
    [q.brandId, q.accountId, q.status, q.before ?? null, q.limit],
  );
  return rows.map((r) => ({
    ...r,
    item: {
      ...r.item,
      posted_at: new Date(r.item.posted_at),
      received_at: new Date(r.item.received_at),
    },
  }));
}

/** The account's action, locked for a decision when `lock`. */
export async function findAction(
  db: Queryable,
  accountId: string,
  id: string,
  { lock = false } = {},
): Promise<ActionRow | undefined> {
  const { rows } = await db.query<ActionRow>(
    `select ${ACTION_COLUMNS} from engagement_actions a
     where a.id = $1 and a.account_id = $2 ${lock ? 'for update' : ''}`,
    [id, accountId],
  );
  return rows[0];
}

/**
 * An action is approved (with the job that runs it, and for a reply the text it sends) or
 * dismissed; the caller holds its lock.
 */
export async function decideAction(
  db: Queryable,
  id: string,
  decision: { status: 'approved' | 'dismissed'; jobId?: string; text?: string },
): Promise<void> {
  await db.query(
    `update engagement_actions set status = $2, job_id = $3, draft = coalesce($4, draft),
       decided_at = now()
     where id = $1`,
    [id, decision.status, decision.jobId ?? null, decision.text ?? null],
  );
}

/**
 * A post answered (by post_reply or an approved action) or dismissed: its reply proposals
 * still waiting have nothing left to do, and are dismissed too.
 */
export async function closeReplyProposals(db: Queryable, itemId: string): Promise<void> {
  await db.query(
    `update engagement_actions set status = 'dismissed', decided_at = now()
     where item_id = $1 and action = 'reply' and status = 'proposed'`,
    [itemId],
  );
}
