// SQL for brand memory (sql/017_brand_memory.sql).
import type { Queryable } from '../db/pool.ts';

export type MemoryRow = {
  brand_id: string;
  account_id: string;
  doc: Record<string, unknown>;
  confidence: Record<string, number>;
  version: number;
  updated_at: Date;
};

const COLUMNS = 'brand_id::text, account_id::text, doc, confidence, version, updated_at';

/**
 * The brand's memory; a brand that has none yet reads as an empty document at version 1.
 * With `lock` (a patch, an import), the row is made if missing and locked for the rest of the
 * transaction, so that concurrent writers take turns.
 */
export async function memoryOf(
  db: Queryable,
  accountId: string,
  brandId: string,
  lock = false,
): Promise<MemoryRow> {
  if (lock)
    await db.query(
      `insert into brand_memory (brand_id, account_id) values ($1, $2)
       on conflict (brand_id) do nothing`,
      [brandId, accountId],
    );
  const { rows } = await db.query<MemoryRow>(
    `select ${COLUMNS} from brand_memory where brand_id = $1 and account_id = $2
     ${lock ? 'for update' : ''}`,
    [brandId, accountId],
  );
  return (
    rows[0] ?? {
      brand_id: brandId,
      account_id: accountId,
      doc: {},
      confidence: {},
      version: 1,
      updated_at: new Date(),
    }
  );
}

/** Stores a new version of the document. */
export async function saveMemory(
  db: Queryable,
  brandId: string,
  next: { doc: unknown; confidence: Record<string, number>; version: number },
): Promise<MemoryRow> {
  const { rows } = await db.query<MemoryRow>(
    `update brand_memory set doc = $2, confidence = $3, version = $4, updated_at = now()
     where brand_id = $1 returning ${COLUMNS}`,
    [brandId, JSON.stringify(next.doc), JSON.stringify(next.confidence), next.version],
  );
  return rows[0]!;
}
