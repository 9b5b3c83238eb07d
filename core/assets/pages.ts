// A design's rendered pages are image assets of the account like any other: a
// render counts their bytes against the storage quota, a re-render gives the replaced
// pages' bytes back. The render job calls this in its final transaction.
import { storageQuotaOf } from '../accounts/service.ts';
import type { Queryable } from '../db/pool.ts';
import { formatBytes } from '../kernel/sizes.ts';
import { type RenderedPage, replaceDesignPages } from './db.ts';
import { quotaExceeded } from './quota.ts';

export type { RenderedPage };

/**
 * Files a render's pages as the design's, replacing the old ones, within the plan's quota.
 * Beyond it, a 413 whose message says what to do; the rows it changed by then are the
 * caller's transaction's to roll back.
 */
export async function fileDesignPages(
  tx: Queryable,
  design: { id: string; accountId: string; brandId: string },
  size: { width: number; height: number },
  pages: RenderedPage[],
): Promise<{ pageIds: string[]; freedKeys: string[] }> {
  const quota = await storageQuotaOf(tx, design.accountId);
  const filed = await replaceDesignPages(
    tx,
    { ...size, designId: design.id, accountId: design.accountId, brandId: design.brandId, pages },
    quota,
  );
  if (filed) return filed;
  const bytes = pages.reduce((sum, p) => sum + p.bytes, 0);
  throw await quotaExceeded(tx, design.accountId, {
    lead:
      `the ${pages.length} rendered page(s) take ${formatBytes(bytes)}, and the storage quota of ` +
      `${formatBytes(quota)} would be exceeded`,
    usedNote: ', the current pages included',
    retry: 'render again',
  });
}
