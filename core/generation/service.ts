// Generation as the API answers it (POST /v1/generate, MCP repurpose): the source is written
// (a text, a URL still to fetch, or one reused) with a `generation` job in one transaction;
// the call then waits on the process's LISTEN connection for the job, and answers its drafts,
// a 422 saying why the source could not be used, or a 504 with the job to follow.
import { randomUUID } from 'node:crypto';
import { actorOf } from '../audit/schema.ts';
import { getBrandMemory } from '../brandMemory/service.ts';
import { requireBrandFor, requireOwnedBrand } from '../brands/service.ts';
import type { Notifications } from '../db/notifications.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { Job } from '../jobs/schema.ts';
import { startJob, waitForJob } from '../jobs/service.ts';
import { enqueueDraftWeek, enqueueGeneration } from '../jobs/tasks.ts';
import { DomainError, invalid, notFound } from '../kernel/errors.ts';
import { isId } from '../kernel/ids.ts';
import type { Platform } from '../kernel/platforms.ts';
import type { Principal } from '../kernel/principal.ts';
import { nextMonday } from '../posts/service.ts';
import { findOwnedSource, sourceOfText, sourceOfUrl } from '../sources/service.ts';
import type { DraftWeekInput, GenerationResult } from './schema.ts';

export type GenerationCaller = Pick<Principal, 'accountId' | 'selectedBrandId' | 'credential'>;

export type GenerateDeps = {
  pool: Pool;
  notifications: Notifications;
  /** How long the call waits for the drafts (GENERATE_TIMEOUT_S). */
  timeoutMs: number;
};

/** The same URL asked again within this many hours reuses its source (and its fetch). */
export const SOURCE_REUSE_HOURS = 24;

export type GenerationRequest = {
  url?: string;
  text?: string;
  source_id?: string;
  platforms?: Platform[];
  instruction?: string;
  brand_id?: string;
};

export async function generateDrafts(
  deps: GenerateDeps,
  caller: GenerationCaller,
  req: GenerationRequest,
  /** Told each stage the job reaches (fetching, extracting, generating, saving). */
  onStage?: (progress: number, stage: string) => Promise<void>,
): Promise<GenerationResult> {
  const brandId = (await requireBrandFor(deps.pool, caller, req.brand_id)).id;
  const job = await withTransaction(deps.pool, async (tx) => {
    const source = req.source_id
      ? isId(req.source_id)
        ? await findOwnedSource(tx, caller.accountId, req.source_id)
        : undefined
      : req.url
        ? await sourceOfUrl(tx, {
            accountId: caller.accountId,
            brandId,
            url: req.url,
            reuseHours: SOURCE_REUSE_HOURS,
          })
        : await sourceOfText(tx, { accountId: caller.accountId, brandId, text: req.text! });
    if (!source) throw notFound('Source');
    const started = await startJob(
      tx,
      {
        accountId: caller.accountId,
        kind: 'generation',
        subject: `source:${source.id}:${randomUUID()}`,
      },
      (db, jobId) =>
        enqueueGeneration(db, {
          job_id: jobId,
          account_id: caller.accountId,
          source_id: source.id,
          brand_id: brandId,
          platforms: req.platforms,
          instruction: req.instruction,
          actor: actorOf(caller.credential),
        }),
    );
    return started.job;
  });
  const done = await waitForJob(
    deps,
    caller,
    job.job_id,
    deps.timeoutMs / 1000,
    onStage && (async (j) => (j.stage ? onStage(j.progress, j.stage) : undefined)),
  );
  if (done.status === 'succeeded') return done.result as GenerationResult;
  if (done.status === 'failed')
    throw new DomainError('generation_failed', done.error ?? 'Generation failed.', {
      job_id: done.job_id,
    });
  throw new DomainError(
    'generation_timeout',
    `The drafts were not ready within ${deps.timeoutMs / 1000} s; the job goes on: follow it with job_status (job_id), whose result lists the post_ids.`,
    { job_id: done.job_id },
  );
}

/**
 * MCP draft_week: checks the request, then queues the week's job and answers it at once
 * (follow it with job_status; its result lists the post_ids).
 */
export async function startDraftWeek(
  pool: Pool,
  caller: GenerationCaller,
  input: DraftWeekInput,
): Promise<Job> {
  const brandId = (await requireOwnedBrand(pool, caller.accountId, input.brand_id)).id;
  return withTransaction(pool, async (tx) => {
    for (const [i, id] of (input.source_ids ?? []).entries())
      if (!isId(id) || !(await findOwnedSource(tx, caller.accountId, id)))
        throw invalid(['source_ids', i], `no source ${id} of yours`, 'not_found');
    let themes = input.themes;
    if (!themes && !input.source_ids) {
      // Neither given: the brand memory's content pillars are the themes.
      const pillars = (await getBrandMemory(pool, caller, brandId)).doc.pillars ?? [];
      themes = pillars.map((p) => (p.description ? `${p.name}: ${p.description}` : p.name));
      if (!themes.length)
        throw invalid(
          ['themes'],
          'give themes or source_ids, or add content pillars to the brand memory (/pillars)',
        );
    }
    const start = input.start_date ?? (await nextMonday(tx, brandId));
    const { job } = await startJob(
      tx,
      {
        accountId: caller.accountId,
        kind: 'draft_week',
        subject: `week:${brandId}:${start}:${randomUUID()}`,
      },
      (db, jobId) =>
        enqueueDraftWeek(db, {
          job_id: jobId,
          account_id: caller.accountId,
          brand_id: brandId,
          start_date: start,
          platforms: input.platforms,
          posts_per_day: input.posts_per_day,
          themes,
          source_ids: input.source_ids,
          actor: actorOf(caller.credential),
        }),
    );
    return job;
  });
}

export type { GenerationDeps } from './job.ts';
export { runGeneration } from './job.ts';
export type { Message, ModelConfig } from './model.ts';
export { askModel } from './model.ts';
export { bannedMatcher } from './offline.ts';
export { runDraftWeek } from './week.ts';
