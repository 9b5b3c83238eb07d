// MCP use_video_template: a video template's slots filled, and the video design and its draft
// post created together. Video designs are never rendered to pages: export_video makes the file.
import { actorOf } from '../audit/schema.ts';
import { requireBrandFor } from '../brands/service.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import type { DesignCaller, Layout } from '../designs/schema.ts';
import { checkedVideoLayout, parseVideoLayout, storeDesign } from '../designs/service.ts';
import { invalid, ValidationFailed } from '../kernel/errors.ts';
import { platformFitIssues } from '../kernel/platformFit.ts';
import { CAPABILITIES, type Kind, type Platform } from '../kernel/platforms.ts';
import { createPostOfDesign } from '../posts/service.ts';
import { closestMatch } from '../validation.ts';
import type { UsedVideoTemplate, UseVideoTemplateInput } from './schema.ts';
import { fillVideoTemplate, videoTemplateFor } from './videoTemplates.ts';

type Loc = (string | number)[];

/** The kind a post on `platform` takes for a video (video, else reel); why not, if neither. */
export function videoKind(platform: Platform, loc: Loc): Kind {
  const kinds = CAPABILITIES[platform].kinds;
  if (kinds.includes('video')) return 'video';
  if (kinds.includes('reel')) return 'reel';
  throw invalid(loc, `${platform} does not take video posts`);
}

/** MCP use_video_template: the filled video design and a draft post of it, together. */
export async function useVideoTemplate(
  deps: { pool: Pool },
  caller: DesignCaller & { features: readonly string[] },
  input: UseVideoTemplateInput,
): Promise<UsedVideoTemplate> {
  const template = videoTemplateFor(caller, input.template);
  if (!template)
    throw invalid(
      ['template'],
      `no video template named "${input.template}"; list_video_templates lists them`,
    );
  const slots = (kind: 'slot' | 'media_slot') =>
    template.draft.layers.flatMap((l) => (typeof l[kind] === 'string' ? [l[kind]] : []));
  for (const [field, kind] of [
    ['texts', 'slot'],
    ['media', 'media_slot'],
  ] as const) {
    const known = slots(kind);
    for (const slot of Object.keys(input[field]))
      if (!known.includes(slot)) {
        const match = closestMatch(slot, known);
        throw invalid(
          [field, slot],
          `template ${template.name} has no ${field === 'texts' ? 'text' : 'media'} slot "${slot}"; ${match ? `did you mean "${match}"? ` : ''}its ${field === 'texts' ? 'text' : 'media'} slots: ${known.join(', ') || 'none'}`,
        );
      }
  }
  // Checked before anything is written: the insert's foreign key would refuse a missing brand
  // with an internal error, and accept another account's.
  const brandId = (await requireBrandFor(deps.pool, caller, input.brand_id)).id;
  const kind = videoKind(input.platform, ['platform']);
  const {
    layout: filled,
    removed,
    mediaSlots,
  } = fillVideoTemplate(template, {
    texts: input.texts,
    media: input.media,
    audio: input.audio_asset_id,
  });
  // An asset refused in the filled layout is named by the slot or argument that gave it.
  const layout = await checkedVideoLayout(
    deps.pool,
    caller.accountId,
    parseVideoLayout(filled, ['template']),
    [],
  ).catch((err: unknown) => {
    if (!(err instanceof ValidationFailed)) throw err;
    throw new ValidationFailed(
      err.issues.map((issue) => {
        const [where, index] = issue.loc;
        const slot = where === 'layers' ? mediaSlots[index as number] : undefined;
        if (slot) return { ...issue, loc: ['media', slot] };
        if (where === 'audio') return { ...issue, loc: ['audio_asset_id'] };
        return { ...issue, loc: ['template', ...issue.loc] };
      }),
    );
  });
  const body = input.body ?? Object.values(input.texts).find((t) => t.trim()) ?? template.title;
  const fit = platformFitIssues({
    platform: input.platform,
    kind,
    body,
    hashtags: null,
    media: ['video'],
  });
  if (fit.length) throw new ValidationFailed(fit);
  return withTransaction(deps.pool, async (tx) => {
    const design = await storeDesign(tx, caller, {
      from: 'layout',
      brandId,
      template: template.name,
      layout: layout as unknown as Layout,
    });
    // A video design has no pages: the post shows its export once there is one.
    const post = await createPostOfDesign(
      tx,
      { accountId: caller.accountId, brandId, actor: actorOf(caller.credential) },
      { platform: input.platform, kind, body, hashtags: null, scheduleAt: null },
      { id: design.id },
    );
    return {
      design_id: design.id,
      post_id: post.id,
      layout_version: design.layout_version,
      kind,
      removed_slots: removed,
    };
  });
}
