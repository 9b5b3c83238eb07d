// Sources: the pages and texts drafts are written from, made when generation is asked for and
// read by its jobs, which record what a URL's page held once fetched.
import type { Queryable } from '../db/pool.ts';
import { findSource, findSourceById, insertSource, recentUrlSource, saveExtracted } from './db.ts';
import { contentHash, type Extracted } from './extract.ts';
import type { SourceRow } from './schema.ts';

/** The account's source; another account's is not found (undefined). */
export async function findOwnedSource(
  db: Queryable,
  accountId: string,
  sourceId: string,
): Promise<SourceRow | undefined> {
  return findSource(db, accountId, sourceId);
}

/**
 * The brand's source of `url`: the one made within `reuseHours`, else a new one, its page
 * fetched by the job.
 */
export async function sourceOfUrl(
  db: Queryable,
  s: { accountId: string; brandId: string; url: string; reuseHours: number },
): Promise<SourceRow> {
  return (
    (await recentUrlSource(db, s.accountId, s.brandId, s.url, s.reuseHours)) ??
    (await insertSource(db, {
      accountId: s.accountId,
      brandId: s.brandId,
      kind: 'url',
      url: s.url,
      title: null,
      text: '',
      contentHash: null,
    }))
  );
}

/** A new source of the brand holding `text` as given. */
export async function sourceOfText(
  db: Queryable,
  s: { accountId: string; brandId: string; text: string },
): Promise<SourceRow> {
  return insertSource(db, {
    accountId: s.accountId,
    brandId: s.brandId,
    kind: 'text',
    url: null,
    title: null,
    text: s.text,
    contentHash: contentHash(s.text),
  });
}

/** A source by id alone: for the job, which runs for the account that made it. */
export async function sourceForJob(
  db: Queryable,
  sourceId: string,
): Promise<SourceRow | undefined> {
  return findSourceById(db, sourceId);
}

/** Records what a URL's page held. */
export async function recordExtracted(
  db: Queryable,
  sourceId: string,
  extracted: Extracted,
): Promise<SourceRow> {
  return saveExtracted(db, sourceId, extracted);
}

export {
  decodePage,
  extractOffThread,
  fetchArticle,
  networkReason,
  readCapped,
  SourceRefused,
} from './extract.ts';
