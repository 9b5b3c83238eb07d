// The generation job (the `generate` pool, workers/generateDrafts.ts): the source's page
// fetched and its article extracted when it is a URL not read yet, then one draft per target
// platform by the model server when one is configured, else the built-in generator, under the
// brand memory's rules; the drafts and the job's
// success commit together.
import { voiceOf } from '../brandMemory/service.ts';
import { listConnectedAccounts } from '../connections/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { type FinishInside, JobFailure, type ProgressReport } from '../jobs/service.ts';
import type { GenerateDraftsPayload } from '../jobs/tasks.ts';
import type { OutboundPolicy } from '../outbound/guard.ts';
import type { Platform } from '../platforms/capabilities.ts';
import { insertPost, setPostSource } from '../posts/db.ts';
import { findSourceById, saveExtracted } from '../sources/db.ts';
import { fetchArticle, SourceRefused } from '../sources/extract.ts';
import { type ModelConfig, modelDrafts } from './model.ts';
import { offlineDraft, TEXT_PLATFORMS } from './offline.ts';
import type { GenerationResult } from './schema.ts';

export type GenerationDeps = {
  pool: Pool;
  outbound: OutboundPolicy;
  /** A model server (LLM_BASE_URL, LLM_MODEL); the built-in generator without one. */
  llm?: ModelConfig;
};

/** Where drafts go when the request names no platforms. */
export const DEFAULT_PLATFORMS: readonly Platform[] = ['x', 'linkedin', 'bluesky'];

/** The platforms asked for, else the brand's connected ones, else its memory's, else defaults. */
async function targetsOf(
  deps: GenerationDeps,
  accountId: string,
  job: GenerateDraftsPayload,
  preferred: readonly Platform[],
): Promise<Platform[]> {
  if (job.platforms?.length) return [...new Set(job.platforms)];
  const connected = (await listConnectedAccounts(deps.pool, accountId, job.brand_id)).map(
    (a) => a.platform as Platform,
  );
  const chosen = connected.length ? connected : preferred.length ? preferred : DEFAULT_PLATFORMS;
  return [...new Set(chosen)];
}

export async function runGeneration(
  deps: GenerationDeps,
  job: GenerateDraftsPayload,
  report: ProgressReport,
  finish: FinishInside,
): Promise<GenerationResult> {
  let source = await findSourceById(deps.pool, job.source_id);
  if (!source) throw new JobFailure('The source was deleted before its drafts were written.');
  if (source.kind === 'url' && !source.fetched_at) {
    await report(0.05, 'fetching');
    try {
      const article = await fetchArticle(source.url!, deps.outbound);
      await report(0.4, 'extracting');
      source = await saveExtracted(deps.pool, source.id, article);
    } catch (err) {
      if (err instanceof SourceRefused)
        throw new JobFailure(`Cannot use ${source.url}: ${err.message}.`);
      throw err;
    }
  }
  await report(0.5, 'generating');
  const voice = await voiceOf(deps.pool, source.account_id, job.brand_id);
  const targets = await targetsOf(deps, source.account_id, job, voice.platforms);
  const writable = targets.filter((p) => TEXT_PLATFORMS.includes(p));
  const skipped = targets.filter((p) => !TEXT_PLATFORMS.includes(p));
  if (!writable.length)
    throw new JobFailure(
      `None of ${targets.join(', ')} takes a text post; name platforms that do (e.g. ${DEFAULT_PLATFORMS.join(', ')}).`,
    );
  const input = { title: source.title, text: source.text, lang: source.lang };
  const drafts = deps.llm
    ? await modelDrafts(deps.llm, input, writable, voice, job.instruction)
    : writable.map((platform) => offlineDraft(input, platform, voice));
  await report(0.8, 'saving');
  const from = source;
  return withTransaction(deps.pool, async (tx) => {
    const postIds: string[] = [];
    for (const d of drafts) {
      const post = await insertPost(
        tx,
        {
          accountId: from.account_id,
          brandId: job.brand_id,
          platform: d.platform,
          kind: d.kind,
          body: d.body,
          hashtags: d.hashtags,
          scheduleAt: null,
        },
        job.actor,
      );
      if (!post) throw new JobFailure('The brand was deleted before its drafts were written.');
      await setPostSource(tx, post.id, from.id, d.headline);
      postIds.push(post.id);
    }
    const result = { source_id: from.id, post_ids: postIds, skipped_platforms: skipped };
    await finish(tx, result);
    return result;
  });
}
