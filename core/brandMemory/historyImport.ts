// The history import (POST /v1/brand-memory/import, MCP import_history): a job of the
// `generate` pool reads up to 200 recent posts of each of the brand's connected accounts
// through its connector, keeps the best as the memory's examples, measures the brand's habits
// (length, emoji and hashtags, frequent terms, posting hours) and writes both as one new
// memory version, committed with the job. A platform whose connector cannot read is skipped.
import { randomUUID } from 'node:crypto';
import { requireBrandFor } from '../brands/service.ts';
import {
  activeAccountsOfBrand,
  type CredentialsKey,
  keepRefreshedCredentials,
  type OAuthDeps,
  openedAccess,
  withAccessTokens,
} from '../connections/service.ts';
import { type Connectors, type PastPost, PublicationError } from '../connectors/schema.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { Job } from '../jobs/schema.ts';
import { type FinishInside, JobFailure, type ProgressReport, startJob } from '../jobs/service.ts';
import { enqueueHistoryImport, type ImportHistoryPayload } from '../jobs/tasks.ts';
import type { Platform } from '../kernel/platforms.ts';
import { type MemoryCaller, recordInferred } from './memory.ts';
import type { Habits, MemoryDoc } from './schema.ts';
import { STOPWORDS } from './text.ts';

/** Posts read per connected account. */
export const HISTORY_POSTS = 200;
/** Posts kept as examples: the most engaging. */
export const EXAMPLES_KEPT = 20;

export type ImportInput = { platforms?: Platform[]; brand_id?: string };

/** Queues the import and answers its job at once (202). */
export async function startHistoryImport(
  pool: Pool,
  caller: MemoryCaller,
  input: ImportInput,
): Promise<Job> {
  const brand = await requireBrandFor(pool, caller, input.brand_id);
  return withTransaction(pool, async (tx) => {
    const { job } = await startJob(
      tx,
      {
        accountId: caller.accountId,
        kind: 'history_import',
        subject: `import:${brand.id}:${randomUUID()}`,
      },
      (db, jobId) =>
        enqueueHistoryImport(db, {
          job_id: jobId,
          account_id: caller.accountId,
          brand_id: brand.id,
          platforms: input.platforms,
        }),
    );
    return job;
  });
}

type Read = PastPost & { platform: Platform };

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0;
};
const top = (counts: Map<string, number>, n: number) =>
  [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, n)
    .map(([k]) => k);
const count = (into: Map<string, number>, key: string) => into.set(key, (into.get(key) ?? 0) + 1);
const round = (x: number) => Math.round(x * 100) / 100;

/** What the brand's posts show of its habits. */
export function habitsOf(posts: readonly Read[]): Habits {
  const tags = new Map<string, number>();
  const terms = new Map<string, number>();
  const hours = new Map<string, number>();
  let emoji = 0;
  let hashtags = 0;
  const words = new Intl.Segmenter('en', { granularity: 'word' });
  for (const p of posts) {
    emoji += p.text.match(/\p{Extended_Pictographic}/gu)?.length ?? 0;
    for (const tag of p.text.match(/#[\p{L}\p{N}_]+/gu) ?? []) {
      hashtags++;
      count(tags, tag.toLowerCase());
    }
    const plain = p.text.replace(/https?:\/\/\S+|[#@][\p{L}\p{N}_.]+/gu, ' ');
    for (const w of words.segment(plain))
      if (w.isWordLike && [...w.segment].length >= 4 && !/^\d+$/.test(w.segment)) {
        const word = w.segment.toLowerCase();
        if (!STOPWORDS.has(word)) count(terms, word);
      }
    const hour = new Date(p.postedAt).getUTCHours();
    if (!Number.isNaN(hour)) count(hours, String(hour));
  }
  const n = posts.length || 1;
  return {
    posts_read: posts.length,
    typical_length: median(posts.map((p) => [...p.text].length)),
    emoji_per_post: round(emoji / n),
    hashtags_per_post: round(hashtags / n),
    top_hashtags: top(tags, 5),
    frequent_terms: top(terms, 10).map((t) => t.slice(0, 60)),
    posting_hours_utc: top(hours, 3).map(Number),
  };
}

/** The most engaging posts, newest first among equals, as memory examples. */
function examplesOf(posts: readonly Read[]): NonNullable<MemoryDoc['examples']> {
  return [...posts]
    .filter((p) => p.text.trim())
    .sort(
      (a, b) =>
        b.likes + b.reposts + b.replies - (a.likes + a.reposts + a.replies) ||
        (a.postedAt < b.postedAt ? 1 : -1),
    )
    .slice(0, EXAMPLES_KEPT)
    .map((p) => ({
      platform: p.platform,
      // An example shows a voice: a thousand characters of it are plenty.
      text: p.text.trim().slice(0, 1000),
      engagement: p.likes + p.reposts + p.replies,
      ...(p.url && /^https?:\/\//.test(p.url) ? { url: p.url.slice(0, 2000) } : {}),
      ...(Number.isNaN(Date.parse(p.postedAt))
        ? {}
        : { posted_at: new Date(p.postedAt).toISOString() }),
    }));
}

export type HistoryDeps = {
  pool: Pool;
  connectors: Connectors;
  credentialsKey?: CredentialsKey;
  /** Refreshes OAuth platforms' access tokens. */
  oauth?: OAuthDeps;
};

export async function runHistoryImport(
  deps: HistoryDeps,
  job: ImportHistoryPayload,
  report: ProgressReport,
  finish: FinishInside,
) {
  const accounts = (await activeAccountsOfBrand(deps.pool, job.account_id, job.brand_id)).filter(
    (a) => !job.platforms || job.platforms.includes(a.platform),
  );
  if (!accounts.length)
    throw new JobFailure(
      'The brand has no connected account to read (the operator connects one: npm run admin -- connect ...); nothing was changed.',
    );
  const read: Record<string, { posts: number; note?: string }> = {};
  const posts: Read[] = [];
  for (const [i, a] of accounts.entries()) {
    await report(0.1 + (0.7 * i) / accounts.length, `reading_${a.platform}`);
    const connector = deps.connectors[a.platform];
    if (!connector?.recentPosts) {
      read[a.platform] = { posts: 0, note: 'reading past posts is not supported yet' };
      continue;
    }
    if (!a.credentials || !deps.credentialsKey) {
      read[a.platform] = { posts: 0, note: 'no credentials to read with; reconnect the account' };
      continue;
    }
    try {
      const mine = await connector.recentPosts(
        withAccessTokens(
          { pool: deps.pool, credentialsKey: deps.credentialsKey, oauth: deps.oauth },
          a,
          openedAccess(deps.credentialsKey, { ...a, credentials: a.credentials }, (sealed) =>
            keepRefreshedCredentials(deps.pool, a.id, sealed),
          ),
        ),
        HISTORY_POSTS,
      );
      for (const p of mine) posts.push({ ...p, platform: a.platform });
      read[a.platform] = { posts: mine.length };
    } catch (err) {
      if (!(err instanceof PublicationError)) throw err;
      read[a.platform] = { posts: 0, note: err.message };
    }
  }
  if (!posts.length)
    throw new JobFailure(
      `No past post could be read (${Object.entries(read)
        .map(([p, r]) => `${p}: ${r.note ?? 'none found'}`)
        .join('; ')}); nothing was changed.`,
    );
  await report(0.9, 'saving');
  // A few posts tell less than many: confidence grows with what was read.
  const confidence = round(Math.min(0.9, 0.3 + (0.6 * posts.length) / HISTORY_POSTS));
  return withTransaction(deps.pool, async (tx) => {
    const examples = examplesOf(posts);
    const { version, kept } = await recordInferred(
      tx,
      job.account_id,
      job.brand_id,
      { examples, habits: habitsOf(posts) },
      confidence,
    );
    const result = { read, examples: examples.length, version, kept_as_stated: kept };
    await finish(tx, result);
    return result;
  });
}
