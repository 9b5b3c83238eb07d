// Design templates (MCP list_design_templates): the catalogue of core/templates/catalogue/,
// each laid out for any aspect by its own rules (core/templates/kit.ts), with named slots for
// text and images. Premium templates need the pro plan (core/templates/fill.ts templateFor).
// Thumbnails are rendered from the templates with their sample copy
// (bin/renderTemplateThumbnails.ts) and committed.
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ASPECT_NAMES } from '../designs/schema.ts';
import { CATALOGUE } from './catalogue/index.ts';
import { type SlotInfo, slotsOfSpec, type TemplateSpec } from './kit.ts';
import type { TemplateSummary } from './schema.ts';

export const THUMBNAILS_DIR = fileURLToPath(new URL('./catalogue/thumbnails/', import.meta.url));

export type Template = TemplateSpec;

export const TEMPLATES: ReadonlyMap<string, Template> = new Map(CATALOGUE.map((t) => [t.name, t]));

export const NICHES = [...new Set(CATALOGUE.map((t) => t.niche))].sort();

const slotCache = new Map<string, SlotInfo[]>();

/** The slots a template offers, in layer order. */
export function slotsOf(t: Template): SlotInfo[] {
  let slots = slotCache.get(t.name);
  if (!slots) {
    slots = slotsOfSpec(t);
    slotCache.set(t.name, slots);
  }
  return slots;
}

/** The slots a post's copy fills: its first sentence, and the rest. */
export const copySlotsOf = (t: Template) => ({
  headline: t.copy?.headline ?? 'headline',
  body: t.copy?.body ?? 'body',
});

/** Where a slot the request leaves out takes its content from, if anywhere. */
export function slotFallback(t: Template, slot: string): 'post_copy' | 'brand_logo' | null {
  const copy = copySlotsOf(t);
  if (slot === copy.headline || slot === copy.body) return 'post_copy';
  return slot === 'logo' ? 'brand_logo' : null;
}

export const ListTemplatesQuery = z
  .object({
    query: z
      .string()
      .max(100)
      .optional()
      .describe('Words matched in the name, title, niche and tags (case-insensitive).'),
    shape: z
      .enum(ASPECT_NAMES)
      .optional()
      .describe("The template's own aspect: square, portrait, story or landscape."),
    niche: z
      .string()
      .max(40)
      .optional()
      .describe(`A niche: ${NICHES.join(', ')}.`),
    offset: z.number().int().min(0).default(0).describe('Rows to skip (advance by rows returned).'),
    limit: z.number().int().min(1).max(50).default(20).describe('Rows to return, at most 50.'),
  })
  .strict();
export type ListTemplatesQuery = z.infer<typeof ListTemplatesQuery>;

const searchText = (t: Template) => [t.name, t.title, t.niche, ...t.tags].join(' ').toLowerCase();

/** list_design_templates: filtered, in name order, one page at `offset`. */
export function listTemplates(
  q: ListTemplatesQuery,
  publicBaseUrl: string,
): { templates: TemplateSummary[] } {
  const words = (q.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const niche = q.niche?.toLowerCase();
  const matching = [...TEMPLATES.values()]
    .filter((t) => !q.shape || t.aspect === q.shape)
    .filter((t) => !niche || t.niche === niche)
    .filter((t) => words.every((w) => searchText(t).includes(w)))
    .sort((a, b) => a.name.localeCompare(b.name));
  return {
    templates: matching.slice(q.offset, q.offset + q.limit).map((t) => ({
      name: t.name,
      title: t.title,
      niche: t.niche,
      aspect: t.aspect,
      premium: t.premium,
      slots: slotsOf(t).map((slot) => ({ ...slot, fallback: slotFallback(t, slot.name) })),
      thumbnail_url: `${publicBaseUrl}/design-templates/${t.name}/thumbnail.png`,
    })),
  };
}
