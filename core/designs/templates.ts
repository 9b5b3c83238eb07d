// Design templates: named starting layouts kept as JSON files in ./templates/, each drawn for
// its own aspect, with text slots (`headline`, `body`, `cta`, ...) that a post's copy or a
// headline fills. Laid out for another aspect, a template's layers scale with the canvas.
// Premium templates need the pro plan (core/designs/service.ts templateFor). Thumbnails are
// rendered from the templates themselves (bin/renderTemplateThumbnails.ts) and committed.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ASPECT_NAMES, ASPECTS, type Aspect, type LayerInput } from './layout.ts';

export const TEMPLATES_DIR = fileURLToPath(new URL('./templates/', import.meta.url));
export const THUMBNAILS_DIR = path.join(TEMPLATES_DIR, 'thumbnails');

export type Template = {
  name: string;
  title: string;
  niche: string;
  /** The aspect the template was drawn for; its layers are in that canvas's pixels. */
  aspect: Aspect;
  premium: boolean;
  /** Search words besides the name, title and niche. */
  tags: string[];
  bg: string;
  layers: LayerInput[];
};

function loadTemplates(): Template[] {
  return readdirSync(TEMPLATES_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(TEMPLATES_DIR, f), 'utf8')) as Template);
}

export const TEMPLATES: ReadonlyMap<string, Template> = new Map(
  loadTemplates().map((t) => [t.name, t]),
);

export const NICHES = [...new Set([...TEMPLATES.values()].map((t) => t.niche))].sort();

/** The text slots a template offers, in layer order. */
export const slotsOf = (t: Template) =>
  t.layers.flatMap((l) => (l.kind === 'text' && l.slot ? [l.slot] : []));

/** A layer of a template drawn at (1, 1) scaled by `sx`, `sy`; sizes by the smaller factor. */
function scaleLayer(layer: LayerInput, sx: number, sy: number): LayerInput {
  const s = Math.min(sx, sy);
  const r = (n: number) => Math.round(n * 100) / 100;
  const frame = {
    ...layer,
    x: r(layer.x * sx),
    y: r(layer.y * sy),
    w: r(layer.w * sx),
    ...(layer.h === undefined ? {} : { h: r(layer.h * sy) }),
  } as LayerInput;
  switch (frame.kind) {
    case 'text':
      return { ...frame, size: r((frame.size ?? 48) * s) };
    case 'shape':
      return {
        ...frame,
        stroke_width: r((frame.stroke_width ?? 0) * s),
        radius: r((frame.radius ?? 0) * s),
      };
    case 'doodle':
      return {
        ...frame,
        strokes: frame.strokes.map((st) => ({
          ...st,
          width: r((st.width ?? 8) * s),
          points: st.points.map(
            ([x, y, ...pressure]) =>
              [r(x * sx), r(y * sy), ...pressure] as (typeof st.points)[number],
          ),
        })),
      };
    default:
      return frame;
  }
}

/**
 * The template's layout for an aspect (its own when undefined), with its slots filled where a
 * non-empty text is given.
 */
export function layoutFromTemplate(
  template: Template,
  aspect: Aspect | undefined,
  fill: Record<string, string | null | undefined>,
) {
  const target = aspect ?? template.aspect;
  const from = ASPECTS[template.aspect];
  const to = ASPECTS[target];
  const sx = to.width / from.width;
  const sy = to.height / from.height;
  const layers = template.layers.map((layer) => {
    const scaled = sx === 1 && sy === 1 ? layer : scaleLayer(layer, sx, sy);
    if (scaled.kind !== 'text' || !scaled.slot) return scaled;
    const text = fill[scaled.slot];
    return text ? { ...scaled, text } : scaled;
  });
  return { canvas: { aspect: target, bg: template.bg }, layers };
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

export const TemplateSummary = z.object({
  name: z.string(),
  title: z.string(),
  niche: z.string(),
  aspect: z.enum(ASPECT_NAMES).describe('Its own aspect (any aspect can use it).'),
  premium: z.boolean().describe('Premium templates need the pro plan or higher.'),
  slots: z.array(z.string()).describe('Text slots; headline takes the headline or first line.'),
  thumbnail_url: z.string(),
});
export type TemplateSummary = z.infer<typeof TemplateSummary>;

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
      slots: slotsOf(t),
      thumbnail_url: `${publicBaseUrl}/design-templates/${t.name}/thumbnail.png`,
    })),
  };
}
