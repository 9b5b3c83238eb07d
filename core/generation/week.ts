// The draft_week job (the `generate` pool, workers/draftWeek.ts): a week of drafts for each
// target platform, one to three a day, each in a free slot of that day (the brand's posting
// slots, neither scheduled nor suggested already) that it carries as `suggested_for`; still
// drafts: nothing is scheduled. Themes or sources take turns through the week; a source used
// again starts further into its text, so its drafts differ.
import { voiceOf } from '../brandMemory/service.ts';
import { withTransaction } from '../db/pool.ts';
import { type FinishInside, JobFailure, type ProgressReport } from '../jobs/service.ts';
import type { DraftWeekPayload } from '../jobs/tasks.ts';
import { freeSlotsOfWeek, lockSlots } from '../posts/service.ts';
import { eachInTurn, type GenerationDeps, readySource, saveDrafts, targetsOf } from './job.ts';
import { type Draft, type GenerationSource, offlineDraft } from './offline.ts';

type Item = { source: GenerationSource; sourceId: string | null };

/** `text` starting `turn` × 3 sentences in (wrapping round), so each use leads differently. */
function rotated(source: GenerationSource, turn: number): GenerationSource {
  if (!turn) return source;
  const sentences = [
    ...new Intl.Segmenter(source.lang || 'en', { granularity: 'sentence' }).segment(source.text),
  ].map((s) => s.segment.trim());
  if (sentences.length < 2) return source;
  const start = (turn * 3) % sentences.length;
  return {
    ...source,
    text: [...sentences.slice(start), ...sentences.slice(0, start)].join(' '),
  };
}

export async function runDraftWeek(
  deps: GenerationDeps,
  job: DraftWeekPayload,
  report: ProgressReport,
  finish: FinishInside,
) {
  const items: Item[] = [];
  for (const id of job.source_ids ?? []) {
    const s = await readySource(deps, id, report);
    items.push({
      source: { title: s.title, text: s.text, lang: s.lang, url: s.url },
      sourceId: s.id,
    });
  }
  for (const theme of job.themes ?? [])
    items.push({ source: { title: null, text: theme }, sourceId: null });
  if (!items.length) throw new JobFailure('Nothing to write about: give themes or source_ids.');
  const accountId = job.account_id;
  await report(0.5, 'generating');
  const voice = await voiceOf(deps.pool, accountId, job.brand_id);
  const { writable, skipped } = await targetsOf(deps, accountId, job, voice.platforms);
  await report(0.6, 'saving');
  // The slots are chosen and the drafts saved in one transaction that holds each platform's
  // slot lock (as schedule_post takes it): two weeks drafted at once never suggest one slot.
  return withTransaction(deps.pool, async (tx) => {
    const drafts: (Draft & { sourceId: string | null; suggestedFor: string })[] = [];
    for (const platform of writable) {
      await lockSlots(tx, job.brand_id, platform);
      const days = await freeSlotsOfWeek(
        tx,
        job.brand_id,
        platform,
        job.start_date,
        job.posts_per_day,
      );
      // A week is up to 126 drafts: made in turn with the event loop (shared with the API).
      const made = await eachInTurn(days.flat(), (at, n) => {
        const item = items[n % items.length]!;
        return {
          ...offlineDraft(rotated(item.source, Math.floor(n / items.length)), platform, voice),
          sourceId: item.sourceId,
          suggestedFor: at,
        };
      });
      drafts.push(...made);
    }
    const postIds = await saveDrafts(
      tx,
      { accountId, brandId: job.brand_id, actor: job.actor },
      drafts,
    );
    const result = { start_date: job.start_date, post_ids: postIds, skipped_platforms: skipped };
    await finish(tx, result);
    return result;
  });
}
