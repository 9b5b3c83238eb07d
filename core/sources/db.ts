// SQL for sources (sql/018_generation.sql).
import type { Queryable } from '../db/pool.ts';
import type { Extracted } from './extract.ts';
import type { SourceRow } from './schema.ts';

export type { SourceRow };

const COLUMNS = `id::text, account_id::text, brand_id::text, kind, url, title, text, site_name,
  lang, content_hash, fetched_at, created_at`;

export async function insertSource(
  db: Queryable,
  s: {
    accountId: string;
    brandId: string;
    kind: 'url' | 'text';
    url: string | null;
    title: string | null;
    text: string;
    contentHash: string | null;
  },
): Promise<SourceRow> {
  const { rows } = await db.query<SourceRow>(
    `insert into sources (account_id, brand_id, kind, url, title, text, content_hash)
     values ($1, $2, $3, $4, $5, $6, $7) returning ${COLUMNS}`,
    [s.accountId, s.brandId, s.kind, s.url, s.title, s.text, s.contentHash],
  );
  return rows[0]!;
}

/** The brand's source of `url` made within `hours`, newest first, if any. */
export async function recentUrlSource(
  db: Queryable,
  accountId: string,
  brandId: string,
  url: string,
  hours: number,
): Promise<SourceRow | undefined> {
  const { rows } = await db.query<SourceRow>(
    `select ${COLUMNS} from sources
     where account_id = $1 and brand_id = $2 and kind = 'url' and url = $3
       and created_at > now() - make_interval(hours => $4)
     order by created_at desc limit 1`,
    [accountId, brandId, url, hours],
  );
  return rows[0];
}

/** The account's source; another account's is not found. */
export async function findSource(
  db: Queryable,
  accountId: string,
  sourceId: string,
): Promise<SourceRow | undefined> {
  const { rows } = await db.query<SourceRow>(
    `select ${COLUMNS} from sources where id = $1 and account_id = $2`,
    [sourceId, accountId],
  );
  return rows[0];
}

/** A source by id alone: for the job, which runs for the account that made it. */
export async function findSourceById(
  db: Queryable,
  sourceId: string,
): Promise<SourceRow | undefined> {
  const { rows } = await db.query<SourceRow>(`select ${COLUMNS} from sources where id = $1`, [
    sourceId,
  ]);
  return rows[0];
}

/** Records what a URL's page held. */
export async function saveExtracted(
  db: Queryable,
  sourceId: string,
  e: Extracted,
): Promise<SourceRow> {
  const { rows } = await db.query<SourceRow>(
    `update sources set title = $2, text = $3, site_name = $4, lang = $5, content_hash = $6,
       fetched_at = now()
     where id = $1 returning ${COLUMNS}`,
    [sourceId, e.title, e.text, e.siteName, e.lang, e.contentHash],
  );
  return rows[0]!;
}
