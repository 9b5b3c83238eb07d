// SQL for reply suggestions (sql/032_inbound.sql): third parties' posts that mention a brand's
// connected account or answer its posts, where each account's reading stopped, the drafts
// and the one reply a suggestion may send.
import type { InboundPost } from '../connectors/schema.ts';
import type { Queryable } from '../db/pool.ts';
import type { Platform } from '../kernel/platforms.ts';
import type { SuggestionStatus } from './schema.ts';

export type SuggestionRow = {
  id: string;
  account_id: string;
  brand_id: string;
  connected_account_id: string;
  platform: Platform;
  kind: 'mention' | 'reply' | 'keyword';
  external_id: string;
  reply_ref: Record<string, string> | null;
  url: string | null;
  author_handle: string;
  author_id: string;
  text: string;
  posted_at: Date;
  post_id: string | null;
  /** The body of our post it answers (listing reads only). */
  post_body: string | null;
  received_at: Date;
  status: SuggestionStatus;
  /** Numbered drafts, oldest first: a draft keeps its number as newer ones come. */
  drafts: { n: number; text: string; created_at: string }[];
  reply_text: string | null;
  reply_requested_at: Date | null;
  reply_job_id: string | null;
  reply_external_id: string | null;
  reply_url: string | null;
};

/** A post's columns, as `i` (the inbox reads its posts through them). */
export const COLUMNS = `i.id::text, i.account_id::text, i.brand_id::text, i.connected_account_id::text,
  i.platform, i.kind, i.external_id, i.reply_ref, i.url, i.author_handle, i.author_id, i.text,
  i.posted_at, i.post_id::text, i.received_at, i.status, i.drafts, i.reply_text,
  i.reply_requested_at, i.reply_job_id::text, i.reply_external_id, i.reply_url`;

/** Where the account's last reading stopped (null before the first). */
export async function inboundCursor(db: Queryable, connectedAccountId: string) {
  const { rows } = await db.query<{ cursor: string }>(
    'select cursor from inbound_cursors where connected_account_id = $1',
    [connectedAccountId],
  );
  return rows[0]?.cursor ?? null;
}

/** A post a reading kept for the first time (rules propose actions on these). */
export type NewItem = Pick<SuggestionRow, 'id' | 'kind' | 'text' | 'author_handle' | 'platform'>;

/**
 * Keeps what a reading found (each post once an account; the brand post it answers found by
 * its platform id) and where the next starts (a keyword search has none); answers the posts
 * that were new.
 */
export async function recordInbound(
  db: Queryable,
  account: { id: string; account_id: string; brand_id: string; platform: Platform },
  items: InboundPost[],
  cursor: string | null,
): Promise<NewItem[]> {
  let added: NewItem[] = [];
  // One row a post: a platform that lists a post twice in one answer is read once.
  const once = [...new Map(items.map((i) => [i.id, i])).values()];
  if (once.length) {
    const { rows } = await db.query<NewItem>(
      `insert into inbound_items (account_id, brand_id, connected_account_id, platform, kind,
         external_id, reply_ref, url, author_handle, author_id, text, posted_at, post_id)
       select $1, $2, $3, $4, x.kind, x.id, x."replyRef", x.url, x."authorHandle",
              x."authorId", left(x.text, 10000), x."postedAt",
              (select p.id from posts p
               where p.brand_id = $2 and p.platform = $4
                 and p.external_post_id in (select jsonb_array_elements_text(x.answers))
               order by p.id limit 1)
       from jsonb_to_recordset($5::jsonb) as x(kind text, id text, "replyRef" jsonb, url text,
         "authorHandle" text, "authorId" text, text text, "postedAt" timestamptz,
         answers jsonb)
       -- A post a keyword search kept first is a mention or reply once its notification
       -- comes: it becomes a suggestion (and is new to the rules as such).
       on conflict (connected_account_id, external_id) do update set kind = excluded.kind
         where inbound_items.kind = 'keyword' and excluded.kind <> 'keyword'
       returning id::text, kind, text, author_handle, platform`,
      [account.account_id, account.brand_id, account.id, account.platform, JSON.stringify(once)],
    );
    added = rows;
  }
  if (cursor)
    await db.query(
      `insert into inbound_cursors (connected_account_id, cursor) values ($1, $2)
       on conflict (connected_account_id) do update set cursor = excluded.cursor, read_at = now()`,
      [account.id, cursor],
    );
  return added;
}

/** A page of a brand's suggestions, newest first, with the body of the post each answers. */
export async function listSuggestionRows(
  db: Queryable,
  q: {
    accountId: string;
    brandId: string;
    statuses: readonly SuggestionStatus[];
    platform?: string;
    before?: string;
    limit: number;
  },
): Promise<SuggestionRow[]> {
  const { rows } = await db.query<SuggestionRow>(
    `select ${COLUMNS}, p.body as post_body
     from inbound_items i left join posts p on p.id = i.post_id
     where i.brand_id = $1 and i.account_id = $2 and i.status = any($3::text[])
       and i.kind in ('mention', 'reply')
       and ($4::text is null or i.platform = $4) and ($5::bigint is null or i.id < $5)
     order by i.id desc limit $6`,
    [q.brandId, q.accountId, q.statuses, q.platform ?? null, q.before ?? null, q.limit],
  );
  return rows;
}

/** The account's suggestions of these ids, with their posts' bodies (others are left out). */
export async function findSuggestions(
  db: Queryable,
  accountId: string,
  ids: string[],
  { lock = false } = {},
): Promise<SuggestionRow[]> {
  const { rows } = await db.query<SuggestionRow>(
    `select ${COLUMNS}, p.body as post_body
     from inbound_items i left join posts p on p.id = i.post_id
     where i.id = any($1::bigint[]) and i.account_id = $2
     order by i.id ${lock ? 'for update of i' : ''}`,
    [ids, accountId],
  );
  return rows;
}

/**
 * Adds drafts to a suggestion, numbered after the last one (a number is never reused, so a
 * draft picked from an older listing is that draft or none); the newest `keep` are kept. An
 * open suggestion becomes drafted.
 */
export async function addDrafts(
  db: Queryable,
  id: string,
  texts: string[],
  keep: number,
): Promise<void> {
  await db.query(
    `update inbound_items i set
       drafts = (
         select coalesce(jsonb_agg(d order by (d->>'n')::int), '[]') from (
           select d from (
             select d from jsonb_array_elements(i.drafts) d
             union all
             select jsonb_build_object('n', last.n + t.ord, 'text', t.text, 'created_at', now())
             from jsonb_array_elements_text($2::jsonb) with ordinality t(text, ord),
                  (select coalesce(max((x->>'n')::int), -1) as n
                   from jsonb_array_elements(i.drafts) x) last
           ) every_draft
           order by (d->>'n')::int desc limit $3) kept),
       status = case when status = 'open' then 'drafted' else status end
     where id = $1 and status in ('open', 'drafted')`,
    [id, JSON.stringify(texts), keep],
  );
}

/** Sets a waiting suggestion's status (dismissed); false when it is not waiting. */
export async function dismissSuggestion(db: Queryable, accountId: string, id: string) {
  const { rowCount } = await db.query(
    `update inbound_items set status = 'dismissed'
     where id = $1 and account_id = $2 and status in ('open', 'drafted')`,
    [id, accountId],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Records the reply asked for: its text, and (the first time only) when it was asked, which
 * the reply's record key derives from; the job that sends it.
 */
export async function requestReply(db: Queryable, id: string, text: string, jobId: string) {
  await db.query(
    `update inbound_items set reply_text = $2, reply_job_id = $3,
       reply_requested_at = coalesce(reply_requested_at, now())
     where id = $1`,
    [id, text, jobId],
  );
}

/**
 * Deletes posts received more than `days` ago (their inbox actions go with them), but for one
 * whose reply is asked and not recorded yet; answers how many.
 */
export async function deleteOldItems(db: Queryable, days: number): Promise<number> {
  const { rowCount } = await db.query(
    `delete from inbound_items
     where received_at < now() - make_interval(days => $1)
       and (reply_job_id is null or status in ('replied', 'dismissed'))`,
    [days],
  );
  return rowCount ?? 0;
}

/** The post a reply or an inbox action job works on, with its connected account's sealed credentials. */
export async function suggestionToSend(db: Queryable, id: string) {
  const { rows } = await db.query<
    SuggestionRow & { handle: string; credentials: Buffer | null; account_status: string }
  >(
    `select ${COLUMNS}, null as post_body, ca.handle, ca.credentials, ca.status as account_status
     from inbound_items i join connected_accounts ca on ca.id = i.connected_account_id
     where i.id = $1`,
    [id],
  );
  return rows[0];
}

/** The reply went out: the suggestion is replied, with the reply's id and address. */
export async function recordReplySent(
  db: Queryable,
  id: string,
  reply: { externalId: string; url: string | null },
): Promise<void> {
  await db.query(
    `update inbound_items set status = 'replied', reply_external_id = $2, reply_url = $3,
       replied_at = now()
     where id = $1`,
    [id, reply.externalId, reply.url],
  );
}
