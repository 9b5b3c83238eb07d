// Design templates: named starting layouts with text slots (`headline`, `body`) that a post's
// headline and copy fill. Each is written once against its canvas size, so one template
// serves every aspect. `blank` is the empty page.
import { ASPECTS, type Aspect, type LayerInput } from './layout.ts';

export type Template = {
  name: string;
  niche: string;
  title: string;
  premium: boolean;
  bg: string;
  /** The layers for a canvas of this size. */
  layers: (size: { width: number; height: number }) => LayerInput[];
};

const margin = (w: number) => Math.round(w * 0.08);

const TEMPLATE_LIST: Template[] = [
  {
    name: 'blank',
    niche: 'basic',
    title: 'Blank page',
    premium: false,
    bg: '#ffffff',
    layers: () => [],
  },
  {
    name: 'headline-bold',
    niche: 'announcement',
    title: 'Bold headline on a colour band',
    premium: false,
    bg: '#f4efe6',
    layers: ({ width, height }) => [
      {
        kind: 'shape',
        shape: 'rect',
        x: 0,
        y: 0,
        w: width,
        h: Math.round(height * 0.12),
        fill: '#e4572e',
      },
      {
        kind: 'text',
        slot: 'headline',
        text: 'Your headline',
        x: margin(width),
        y: Math.round(height * 0.22),
        w: width - 2 * margin(width),
        h: Math.round(height * 0.45),
        size: Math.round(width * 0.085),
        weight: 'bold',
        font: 'Montserrat',
        color: '#1b1b1b',
      },
      {
        kind: 'text',
        slot: 'body',
        text: 'A line of supporting copy.',
        x: margin(width),
        y: Math.round(height * 0.72),
        w: width - 2 * margin(width),
        h: Math.round(height * 0.2),
        size: Math.round(width * 0.038),
        font: 'Inter',
        color: '#444444',
      },
    ],
  },
  {
    name: 'quote-card',
    niche: 'quote',
    title: 'Centred quote with a rule',
    premium: false,
    bg: '#1f2933',
    layers: ({ width, height }) => [
      {
        kind: 'text',
        slot: 'headline',
        text: '“A quote worth sharing.”',
        x: margin(width),
        y: Math.round(height * 0.25),
        w: width - 2 * margin(width),
        h: Math.round(height * 0.45),
        size: Math.round(width * 0.07),
        font: 'Playfair Display',
        color: '#ffffff',
        align: 'center',
      },
      {
        kind: 'shape',
        shape: 'line',
        x: Math.round(width * 0.4),
        y: Math.round(height * 0.75),
        w: Math.round(width * 0.2),
        h: 0,
        stroke: '#f5b700',
        stroke_width: 6,
      },
      {
        kind: 'text',
        slot: 'body',
        text: 'Who said it',
        x: margin(width),
        y: Math.round(height * 0.79),
        w: width - 2 * margin(width),
        size: Math.round(width * 0.035),
        font: 'Inter',
        color: '#cbd2d9',
        align: 'center',
      },
    ],
  },
];

export const TEMPLATES = new Map(TEMPLATE_LIST.map((t) => [t.name, t]));

/** The template's layout for an aspect, with its slots filled where text is given. */
export function layoutFromTemplate(
  template: Template,
  aspect: Aspect,
  fill: { headline?: string | null; body?: string | null },
) {
  const layers = template.layers(ASPECTS[aspect]).map((layer) => {
    if (layer.kind !== 'text' || !layer.slot) return layer;
    const text = fill[layer.slot as 'headline' | 'body'];
    return text === undefined || text === null ? layer : { ...layer, text };
  });
  return { canvas: { aspect, bg: template.bg }, layers };
}
