// The generation job (the `generate` pool, workers/generateDrafts.ts): the source's page
// fetched and its article extracted when it is a URL not read yet, then one draft per target
// platform by the model server when one is configured, else the built-in generator, under the
// brand memory's rules; the drafts and the job's
// success commit together.

import type { Actor } from '../audit/schema.ts';
import { voiceOf } from '../brandMemory/service.ts';
import { listConnectedAccounts } from '../connections/service.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { type FinishInside, JobFailure, type ProgressReport } from '../jobs/service.ts';
import type { GenerateDraftsPayload } from '../jobs/tasks.ts';
import { DomainError, ValidationFailed } from '../kernel/errors.ts';
import type { Platform } from '../kernel/platforms.ts';
import type { OutboundPolicy } from '../outbound/guard.ts';
import { createJobDrafts } from '../posts/service.ts';
import type { SourceRow } from '../sources/schema.ts';
import { fetchArticle, recordExtracted, SourceRefused, sourceForJob } from '../sources/service.ts';
import { type ModelConfig, modelDrafts } from './model.ts';
import { type Draft, offlineDraft, TEXT_PLATFORMS } from './offline.ts';
import type { GenerationResult } from './schema.ts';

export type GenerationDeps = {
  pool: Pool;
  outbound: OutboundPolicy;
  /** A model server (LLM_BASE_URL, LLM_MODEL); the built-in generator without one. */
  llm?: ModelConfig;
};

/**
 * `make` for each item, letting the event loop turn between them: `npm start` runs this
 * worker beside the API, and a week of drafts is many milliseconds of work.
 */
export async function eachInTurn<T, R>(
  items: readonly T[],
  make: (item: T, index: number) => R,
): Promise<R[]> {
  const made: R[] = [];
  for (const [index, item] of items.entries()) {
    made.push(make(item, index));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return made;
}

/** Where drafts go when the request names no platforms. */
export const DEFAULT_PLATFORMS: readonly Platform[] = ['x', 'linkedin', 'bluesky'];

/**
 * The platforms asked for, else the brand's connected ones, else its memory's, else the
 * defaults; those that take text posts, and those left out (media only), or why none can.
 */
export async function targetsOf(
  deps: GenerationDeps,
  accountId: string,
  job: { brand_id: string; platforms?: Platform[] },
  preferred: readonly Platform[],
): Promise<{ writable: Platform[]; skipped: Platform[] }> {
  let chosen: readonly Platform[] = job.platforms ?? [];
  if (!chosen.length) {
    const connected = (await listConnectedAccounts(deps.pool, accountId, job.brand_id)).map(
      (a) => a.platform as Platform,
    );
    chosen = connected.length ? connected : preferred.length ? preferred : DEFAULT_PLATFORMS;
  }
  const targets = [...new Set(chosen)];
  const writable = targets.filter((p) => TEXT_PLATFORMS.includes(p));
  if (!writable.length)
    throw new JobFailure(
      `None of ${targets.join(', ')} takes a text post; name platforms that do (e.g. ${DEFAULT_PLATFORMS.join(', ')}).`,
    );
  return { writable, skipped: targets.filter((p) => !TEXT_PLATFORMS.includes(p)) };
}

/** The source with its text: a URL's page fetched and its article extracted, once. */
export async function readySource(
  deps: GenerationDeps,
  sourceId: string,
  report: ProgressReport,
): Promise<SourceRow> {
  const source = await sourceForJob(deps.pool, sourceId);
  if (!source)
    throw new JobFailure(`Source ${sourceId} was deleted before its drafts were written.`);
  if (source.kind !== 'url' || source.fetched_at) return source;
  await report(0.05, 'fetching');
  try {
    const article = await fetchArticle(source.url!, deps.outbound);
    await report(0.4, 'extracting');
    return await recordExtracted(deps.pool, source.id, article);
  } catch (err) {
    if (err instanceof SourceRefused)
      throw new JobFailure(`Cannot use ${source.url}: ${err.message}.`);
    throw err;
  }
}

export async function runGeneration(
  deps: GenerationDeps,
  job: GenerateDraftsPayload,
  report: ProgressReport,
  finish: FinishInside,
): Promise<GenerationResult> {
  const source = await readySource(deps, job.source_id, report);
  await report(0.5, 'generating');
  const voice = await voiceOf(deps.pool, source.account_id, job.brand_id);
  const { writable, skipped } = await targetsOf(deps, source.account_id, job, voice.platforms);
  const input = { title: source.title, text: source.text, lang: source.lang, url: source.url };
  const drafts = deps.llm
    ? await modelDrafts(deps.llm, input, writable, voice, job.instruction)
    : await eachInTurn(writable, (platform) => offlineDraft(input, platform, voice));
  await report(0.8, 'saving');
  return withTransaction(deps.pool, async (tx) => {
    const postIds = await saveDrafts(
      tx,
      { accountId: source.account_id, brandId: job.brand_id, actor: job.actor },
      drafts.map((d) => ({ ...d, sourceId: source.id })),
    );
    const result = { source_id: source.id, post_ids: postIds, skipped_platforms: skipped };
    await finish(tx, result);
    return result;
  });
}

/**
 * Creates the drafts of one job through posts' create operation (each checked against its
 * platform), each with where it came from; their ids, in order.
 */
export async function saveDrafts(
  tx: Queryable,
  owner: { accountId: string; brandId: string; actor: Actor },
  drafts: (Draft & { sourceId: string | null; suggestedFor?: string })[],
): Promise<string[]> {
  try {
    return await createJobDrafts(tx, owner, drafts);
  } catch (err) {
    // A draft its platform would refuse fails the job with the reason, not as an internal error.
    if (err instanceof ValidationFailed)
      throw new JobFailure(`A draft does not fit its platform: ${err.message}`);
    if (err instanceof DomainError && err.code === 'not_found')
      throw new JobFailure('The brand was deleted before its drafts were written.');
    throw err;
  }
}
