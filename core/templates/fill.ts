// Laying a template out: choosing it (premium ones need the pro plan), filling its slots from
// the request, the design's current content or the post copy, and laying it out for an
// aspect with the brand's kit.

import { brandKitOf } from '../brandMemory/service.ts';
import type { Queryable } from '../db/pool.ts';
import {
  type Aspect,
  type DesignCaller,
  type DesignRow,
  Layout,
  MAX_TEXT_PER_LAYER,
} from '../designs/schema.ts';
import { assetIssues, imageLayerAsset, pagesOf } from '../designs/service.ts';
import { DomainError, invalid, ValidationFailed } from '../kernel/errors.ts';
import { type Plan, planAtLeast } from '../kernel/plans.ts';
import { closestMatch, grouped } from '../validation.ts';
import { type ImageFill, instantiate, type SlotFill } from './kit.ts';
import { copySlotsOf, slotsOf, TEMPLATES, type Template } from './listing.ts';
import type { SlotsInput } from './schema.ts';

export const PREMIUM_TEMPLATE_PLAN = 'pro' as const;

/** Whether a plan can use the template: a premium one needs PREMIUM_TEMPLATE_PLAN or higher. */
export const templateAllowed = (plan: Plan, template: Pick<Template, 'premium'>) =>
  !template.premium || planAtLeast(plan, PREMIUM_TEMPLATE_PLAN);

/** The named template, refused when unknown or premium above the caller's plan. */
export function templateFor(
  caller: DesignCaller,
  name: string | undefined,
  loc: (string | number)[],
): Template {
  const template = TEMPLATES.get(name ?? 'blank');
  if (!template) {
    const match = closestMatch(name!.toLowerCase().replace(/\s+/g, '-'), [...TEMPLATES.keys()]);
    throw invalid(
      loc,
      `unknown template "${name}"; ${match ? `did you mean "${match}"? ` : ''}list_design_templates (MCP) lists them, and GET /design-templates/{name}/thumbnail.png shows each`,
    );
  }
  if (!templateAllowed(caller.plan, template))
    throw new DomainError(
      'plan_required',
      `Template "${template.name}" is premium: it needs the ${PREMIUM_TEMPLATE_PLAN} plan or higher.`,
    );
  return template;
}

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * The post copy as template slots: the headline its first sentence (of its first line), the
 * body the rest (or the slots the template names for them: a quote card's quote).
 */
export function copySlots(template: Template, copy: string, loc: Loc): SlotSource {
  const [first = '', ...lines] = copy.trim().split('\n');
  const [headline = '', ...rest] = Array.from(sentences.segment(first.trim()), (s) => s.segment);
  const body = [rest.join('').trim(), ...lines].join('\n').trim();
  const into = copySlotsOf(template);
  return { values: { [into.headline]: headline.trim(), [into.body]: body }, at: () => loc };
}

type Loc = (string | number)[];
/**
 * Slot contents from somewhere (the design, the post copy), and where a refusal of one
 * points (the post copy's headline and body both come from its `body`).
 */
export type SlotSource = {
  values: Record<string, string | ImageFill | null>;
  at: (slot: string) => Loc;
};

/**
 * What fills a template's slots: the request's `slots` (each checked against the template's
 * slots and their kinds; null removes a slot), then each fallback in turn for the slots still
 * open (the design's current content on a re-lay, the post's copy). Text longer than a layer
 * takes is refused where it was given, never cut. `requested` names the image slots the
 * request filled, whose assets must be the account's (templateLayout).
 */
export function templateFill(
  template: Template,
  given: SlotsInput | undefined,
  loc: Loc,
  ...fallbacks: SlotSource[]
): SlotFill & { requested: Set<string> } {
  const slots = slotsOf(template);
  const names = slots.map((s) => s.name);
  for (const [name, value] of Object.entries(given ?? {})) {
    const slot = slots.find((s) => s.name === name);
    if (!slot) {
      const match = closestMatch(name, names);
      throw invalid(
        [...loc, name],
        `template ${template.name} has no slot "${name}"; ${match ? `did you mean "${match}"? ` : ''}its slots: ${names.join(', ') || 'none'}`,
      );
    }
    if (value !== null && (typeof value === 'string') !== (slot.kind === 'text'))
      throw invalid(
        [...loc, name],
        slot.kind === 'text'
          ? `"${name}" is a text slot: give a string`
          : `"${name}" is an image slot: give {"asset_id": "..."}`,
      );
  }
  const fill = { texts: {}, images: {}, requested: new Set<string>() } as SlotFill & {
    requested: Set<string>;
  };
  const settled = new Set<string>();
  const request: SlotSource = { values: given ?? {}, at: (slot) => [...loc, slot] };
  for (const source of [request, ...fallbacks])
    for (const slot of slots) {
      const value = source.values[slot.name];
      if (value === undefined || settled.has(slot.name)) continue;
      if (value === null) settled.add(slot.name);
      else if (slot.kind === 'text' && typeof value === 'string' && value.trim()) {
        if (value.length > MAX_TEXT_PER_LAYER)
          throw invalid(
            source.at(slot.name),
            `the ${slot.name} (${grouped(value.length)} characters) is longer than a template's text slot takes (at most ${grouped(MAX_TEXT_PER_LAYER)}): shorten it, or give a layout of your own`,
            'too_long',
          );
        fill.texts[slot.name] = value;
        settled.add(slot.name);
      } else if (slot.kind === 'image' && typeof value === 'object') {
        fill.images[slot.name] = value;
        settled.add(slot.name);
        if (source === request) fill.requested.add(slot.name);
      }
    }
  return fill;
}

/**
 * What a design's slots hold now, for a re-lay: the text or image of each layer that fills
 * one, when the design was laid out from a template of today's catalogue (older designs hold
 * their templates' sample copy in their slots). The logo is left to the request or the kit.
 */
export function currentSlots(design: Pick<DesignRow, 'layout' | 'template'>): SlotSource {
  const found: SlotSource['values'] = {};
  const source = { values: found, at: () => ['layout'] };
  if (!TEMPLATES.has(design.template)) return source;
  for (const layer of pagesOf(design.layout).flatMap((p) => p.layers)) {
    if (!layer.slot || layer.slot === 'logo' || layer.slot in found) continue;
    if (layer.kind === 'text' && layer.text.trim()) found[layer.slot] = layer.text;
    if (layer.kind === 'image')
      found[layer.slot] = {
        asset_id: layer.asset_id,
        ...(typeof layer.focus === 'object' ? { focus: layer.focus } : {}),
        ...(layer.frame_s === undefined ? {} : { frame_s: layer.frame_s }),
      };
  }
  return source;
}

/**
 * The template laid out at `aspect` (its own when undefined) with `fill`, styled with the
 * brand's kit: its colours and fonts, and its logo in a logo slot the request left open
 * (while the brand still owns that image). An image the request gave must be the account's
 * (a 422 at its slot); one carried over from the design that is gone is left out.
 */
export async function templateLayout(
  db: Queryable,
  accountId: string,
  brandId: string,
  template: Template,
  aspect: Aspect | undefined,
  fill: SlotFill & { requested: Set<string> },
  loc: Loc,
): Promise<Layout> {
  const kit = await brandKitOf(db, accountId, brandId);
  const images = { ...fill.images };
  const logo = kit.logo_asset_id;
  const opened = !(Object.hasOwn(images, 'logo') || fill.requested.has('logo'));
  if (logo && opened && slotsOf(template).some((s) => s.name === 'logo'))
    images.logo = { asset_id: logo };
  const wanted = Object.entries(images).map(([slot, image]) =>
    imageLayerAsset(image, [...loc, slot]),
  );
  const issues = await assetIssues(db, accountId, wanted);
  for (const issue of issues) {
    const slot = String(issue.loc[loc.length]);
    if (fill.requested.has(slot)) throw new ValidationFailed([issue]);
    delete images[slot];
  }
  return Layout.parse(
    instantiate(template, aspect ?? template.aspect, { ...fill, images }, kit).layout,
  );
}
