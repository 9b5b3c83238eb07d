// Quote templates: a quotation (the headline slot) with who said it.
import type { Box, Colour, DraftShape, Sample, TemplateSpec } from '../kit.ts';
import {
  box,
  circle,
  fr,
  hrule,
  linesH,
  logo,
  per,
  photo,
  rect,
  safeEnds,
  slotLine,
  slotText,
  split,
} from './parts.ts';

/** A quotation in the headline slot. */
const QUOTE_SAMPLES: Record<string, Sample> = {
  headline: {
    short: 'Make it simple, but significant.',
    long: "The best marketing doesn't feel like marketing. It feels like a useful conversation with someone who understands exactly what you need.",
  },
};

/**
 * An opening quotation mark drawn in shapes, `s` tall with its top left at x, y and about
 * 1.45 s wide: two balls, each with a tail rising to the right. Bound to the quote's slot,
 * it goes with the quote; unlike a glyph it can be any size.
 */
function quoteMark(
  x: number,
  y: number,
  s: number,
  style: { slot: string; fill: Colour; opacity?: number },
): DraftShape[] {
  const d = s * 0.58;
  const tail = s * 0.5;
  const turn = 28;
  const t = (turn * Math.PI) / 180;
  const one = (x0: number): DraftShape[] => {
    const bx = x0 + d / 2;
    const by = y + s - d / 2;
    // The tail's lower end sits in the ball; turned about its middle, it rises to the right.
    const mx = bx - d * 0.1 + (tail / 2) * Math.sin(t);
    const my = by - d * 0.05 - (tail / 2) * Math.cos(t);
    return [
      circle(bx, by, d, { slot: style.slot, fill: style.fill, opacity: style.opacity ?? 1 }),
      {
        kind: 'shape',
        shape: 'line',
        slot: style.slot,
        x: mx,
        y: my - tail / 2,
        w: 0,
        h: tail,
        stroke: style.fill,
        stroke_width: d * 0.6,
        rotation: turn,
        opacity: style.opacity ?? 1,
      },
    ];
  };
  return [...one(x), ...one(x + s * 0.76)];
}

export const QUOTE: TemplateSpec[] = [
  {
    name: 'quote-serif-mark',
    title: 'Serif quote under a gold quotation mark',
    niche: 'quote',
    aspect: 'square',
    premium: false,
    tags: ['quote', 'quotation', 'inspiration', 'typographic', 'serif', 'dark'],
    palette: {
      primary: '#fbbf24',
      secondary: '#312e81',
      accent: '#fbbf24',
      background: '#1e1b4b',
      text: '#f8fafc',
    },
    fonts: { heading: 'Playfair Display', body: 'Inter' },
    samples: QUOTE_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const { right, bottom } = safeEnds(f);
      const markSize = per(f, 150, 170, 200, 130) * u;
      const lg = per(f, 72, 80, 96, 64) * u;
      const qSize = per(f, 84, 92, 108, 80) * u;
      const author = per(f, 36, 38, 44, 32) * u;
      const role = per(f, 30, 32, 36, 28) * u;
      const quoteTop = safe.y + markSize + per(f, 48, 64, 72, 0) * u;
      const quoteX = f.wide ? safe.x + markSize * 1.45 + 56 * u : safe.x;
      const [quote, , ruleRow, , who, , what] = split(
        f.wide ? safe.y : quoteTop,
        bottom - (f.wide ? safe.y : quoteTop),
        [
          fr(1),
          per(f, 40, 48, 56, 28) * u,
          4 * u,
          per(f, 24, 28, 32, 16) * u,
          linesH(1, author),
          6 * u,
          linesH(1, role),
        ],
      );
      const textW = right - quoteX;
      const whoW = textW - lg - 32 * u;
      return [
        ...quoteMark(safe.x, safe.y + 8 * u, markSize, { slot: 'headline', fill: 'accent' }),
        slotText('headline', box([quoteX, textW], quote), {
          size: qSize,
          font: 'heading',
          color: 'text',
          line_height: 1.22,
          valign: f.wide ? 'middle' : 'top',
        }),
        hrule(quoteX, ruleRow[0], 72 * u, {
          slot: 'author',
          stroke: 'accent',
          stroke_width: 4 * u,
        }),
        slotLine('author', box([quoteX, whoW], who), author, {
          font: 'body',
          weight: 'bold',
          color: 'text',
        }),
        slotLine('role', box([quoteX, whoW], what), role, {
          font: 'body',
          color: '#c7d2fe',
        }),
        logo({ x: right - lg, y: bottom - lg, w: lg, h: lg }),
      ];
    },
  },
  {
    name: 'quote-photo-card',
    title: 'Quote on a light card over a full-bleed photo',
    niche: 'quote',
    aspect: 'portrait',
    premium: true,
    tags: ['quote', 'quotation', 'photo', 'card', 'elegant', 'serif', 'testimonial'],
    palette: {
      primary: '#1f1d1a',
      secondary: '#e7dccb',
      accent: '#b45309',
      background: '#f5f0e8',
      text: '#1f1d1a',
    },
    fonts: { heading: 'Lora', body: 'Inter' },
    samples: QUOTE_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const pad = per(f, 56, 64, 64, 44) * u;
      const chip = per(f, 104, 112, 124, 92) * u;
      // The card: the lower part of the page, the right half on landscape.
      const card: Box = f.wide
        ? { x: safe.x + safe.w * 0.44, y: safe.y, w: safe.w * 0.56, h: safe.h }
        : {
            x: safe.x,
            y: safe.y + safe.h * per(f, 0.3, 0.4, 0.4, 0),
            w: safe.w,
            h: safe.h * per(f, 0.7, 0.6, 0.6, 0),
          };
      const inner: Box = {
        x: card.x + pad,
        y: card.y + pad,
        w: card.w - 2 * pad,
        h: card.h - 2 * pad,
      };
      const markSize = per(f, 64, 72, 84, 52) * u;
      const qSize = per(f, 60, 68, 80, 52) * u;
      const author = per(f, 34, 36, 40, 30) * u;
      const role = per(f, 28, 30, 34, 26) * u;
      const [markRow, , quote, , ruleRow, , who, , what] = split(inner.y, inner.h, [
        markSize,
        per(f, 16, 24, 32, 12) * u,
        fr(1),
        per(f, 32, 40, 48, 24) * u,
        3 * u,
        per(f, 24, 28, 32, 16) * u,
        linesH(1, author),
        4 * u,
        linesH(1, role),
      ]);
      const onCard = '#ffffff' as const;
      return [
        ...photo({ x: 0, y: 0, w: f.width, h: f.height }, 'secondary'),
        rect(card, { slot: 'photo', fill: '#ffffff', radius: 8 * u }),
        rect(
          { x: safe.x, y: safe.y, w: chip, h: chip },
          { slot: 'logo', fill: '#ffffff', radius: 8 * u },
        ),
        logo({ x: safe.x + 16 * u, y: safe.y + 16 * u, w: chip - 32 * u, h: chip - 32 * u }),
        ...quoteMark(inner.x, markRow[0], markRow[1], { slot: 'headline', fill: 'accent' }),
        slotText('headline', box([inner.x, inner.w], quote), {
          size: qSize,
          font: 'heading',
          color: 'text',
          on: onCard,
          line_height: 1.3,
          valign: 'middle',
        }),
        hrule(inner.x, ruleRow[0], 64 * u, {
          slot: 'author',
          stroke: 'accent',
          stroke_width: 3 * u,
        }),
        slotLine('author', box([inner.x, inner.w], who), author, {
          font: 'body',
          weight: 'bold',
          color: 'text',
          on: onCard,
          upper: true,
        }),
        slotLine('role', box([inner.x, inner.w], what), role, {
          font: 'body',
          color: 'text',
          on: onCard,
          opacity: 0.85,
        }),
      ];
    },
  },
  {
    name: 'quote-speaker',
    title: "Speaker quote: photo, a quotation badge and the speaker's name",
    niche: 'quote',
    aspect: 'story',
    premium: false,
    tags: ['quote', 'speaker', 'conference', 'photo', 'dark', 'modern', 'interview'],
    palette: {
      primary: '#22d3ee',
      secondary: '#1e293b',
      accent: '#22d3ee',
      background: '#0f172a',
      text: '#f1f5f9',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: QUOTE_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const { right, bottom } = safeEnds(f);
      const d = per(f, 150, 160, 180, 120) * u;
      const pic: Box = f.wide
        ? { x: 0, y: 0, w: Math.round(f.width * 0.42), h: f.height }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.4, 0.42, 0.44, 0)) };
      // The badge: on the photo's lower edge (its right edge on landscape).
      const bx = f.wide ? pic.w : safe.x + d / 2;
      const by = f.wide ? safe.y + d / 2 + 24 * u : pic.h;
      const c: Box = f.wide
        ? { x: pic.w + d / 2 + 48 * u, y: safe.y, w: 0, h: safe.h }
        : { x: safe.x, y: pic.h + d / 2 + per(f, 32, 44, 56, 0) * u, w: safe.w, h: 0 };
      c.w = right - c.x;
      c.h = bottom - c.y;
      const qSize = per(f, 64, 76, 88, 60) * u;
      const author = per(f, 36, 38, 44, 32) * u;
      const role = per(f, 30, 32, 36, 28) * u;
      const handle = per(f, 28, 30, 34, 26) * u;
      const [quote, , who, , what, , tag] = split(c.y, c.h, [
        fr(1),
        per(f, 28, 40, 48, 24) * u,
        linesH(1, author),
        4 * u,
        linesH(1, role),
        per(f, 20, 28, 40, 16) * u,
        linesH(1, handle),
      ]);
      const chip = per(f, 100, 108, 120, 88) * u;
      const chipX = f.wide ? safe.x : right - chip;
      const markSize = d * 0.4;
      return [
        ...photo(pic, 'secondary'),
        rect(
          { x: chipX, y: safe.y, w: chip, h: chip },
          { slot: 'logo', fill: '#ffffff', radius: chip / 4 },
        ),
        logo({ x: chipX + 14 * u, y: safe.y + 14 * u, w: chip - 28 * u, h: chip - 28 * u }),
        // The badge: a quotation mark in an accent disc, ringed in the page colour.
        circle(bx, by, d + 16 * u, { slot: 'headline', fill: 'background' }),
        circle(bx, by, d, { slot: 'headline', fill: 'accent' }),
        ...quoteMark(bx - markSize * 0.68, by - markSize * 0.5, markSize, {
          slot: 'headline',
          fill: 'background',
        }),
        slotText('headline', box([c.x, c.w], quote), {
          size: qSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.2,
        }),
        slotLine('author', box([c.x, c.w], who), author, {
          font: 'body',
          weight: 'bold',
          color: 'accent',
        }),
        slotLine('role', box([c.x, c.w], what), role, {
          font: 'body',
          color: '#94a3b8',
        }),
        slotLine('handle', box([c.x, c.w], tag), handle, {
          font: 'body',
          color: 'text',
          opacity: 0.85,
        }),
      ];
    },
  },
  {
    name: 'quote-split',
    title: 'Quote beside a photo, marked by a bar',
    niche: 'quote',
    aspect: 'landscape',
    premium: false,
    tags: ['quote', 'quotation', 'split', 'photo', 'serif', 'calm', 'green'],
    palette: {
      primary: '#2f5d50',
      secondary: '#cfe0d8',
      accent: '#2f5d50',
      background: '#f1f5f2',
      text: '#1b2a25',
    },
    fonts: { heading: 'Lora', body: 'Inter' },
    samples: QUOTE_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const { right, bottom } = safeEnds(f);
      const side = f.wide || f.aspect === 'square';
      const pic: Box = side
        ? { x: 0, y: 0, w: Math.round(f.width * (f.wide ? 0.45 : 0.42)), h: f.height }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0, 0.44, 0.46, 0)) };
      const c: Box = side
        ? { x: pic.w + 64 * u, y: safe.y, w: 0, h: safe.h }
        : { x: safe.x, y: pic.h + per(f, 0, 56, 72, 0) * u, w: safe.w, h: 0 };
      c.w = right - c.x;
      c.h = bottom - c.y;
      const lg = per(f, 72, 80, 96, 64) * u;
      const qSize = per(f, 60, 68, 80, 64) * u;
      const author = per(f, 34, 36, 42, 32) * u;
      const role = per(f, 28, 30, 34, 26) * u;
      const bar = 10 * u;
      const indent = bar + 40 * u;
      const barH = Math.min(qSize * 3.2, c.h * 0.5);
      const [quote, , who, , what, , lgRow] = split(c.y, c.h, [
        fr(1),
        per(f, 32, 40, 48, 28) * u,
        linesH(1, author),
        4 * u,
        linesH(1, role),
        per(f, 32, 40, 56, 24) * u,
        lg,
      ]);
      return [
        ...photo(pic, 'secondary'),
        // The bar: a fixed length, centred on the quote's box as the quote is.
        rect(
          { x: c.x, y: quote[0] + (quote[1] - barH) / 2, w: bar, h: barH },
          { slot: 'headline', fill: 'accent', radius: bar / 2 },
        ),
        slotText('headline', box([c.x + indent, c.w - indent], quote), {
          size: qSize,
          font: 'heading',
          color: 'text',
          line_height: 1.3,
          valign: 'middle',
        }),
        slotLine('author', box([c.x + indent, c.w - indent], who), author, {
          font: 'body',
          weight: 'bold',
          color: 'primary',
        }),
        slotLine('role', box([c.x + indent, c.w - indent], what), role, {
          font: 'body',
          color: 'text',
        }),
        logo({ x: c.x + indent, y: lgRow[0], w: lg, h: lgRow[1] }),
      ];
    },
  },
  {
    name: 'quote-handwritten',
    title: 'Handwritten quote on a soft colour disc',
    niche: 'quote',
    aspect: 'portrait',
    premium: false,
    tags: ['quote', 'quotation', 'handwritten', 'minimal', 'soft', 'pastel', 'inspiration'],
    palette: {
      primary: '#b5543a',
      secondary: '#fde2e4',
      accent: '#f4a261',
      background: '#fffdf7',
      text: '#2b2b2b',
    },
    fonts: { heading: 'Caveat', body: 'Lora' },
    samples: QUOTE_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const cx = f.width / 2;
      const lg = per(f, 64, 72, 88, 56) * u;
      const qSize = per(f, 104, 116, 132, 88) * u;
      const author = per(f, 34, 36, 40, 30) * u;
      const role = per(f, 28, 30, 34, 26) * u;
      const handle = per(f, 26, 28, 32, 24) * u;
      const [quote, , ruleRow, , who, , what, , lgRow, , tag] = split(safe.y, safe.h, [
        fr(1),
        per(f, 32, 40, 56, 20) * u,
        3 * u,
        per(f, 24, 28, 32, 14) * u,
        linesH(1, author),
        4 * u,
        linesH(1, role),
        per(f, 40, 56, 72, 20) * u,
        lg,
        12 * u,
        linesH(1, handle),
      ]);
      const textW = f.wide ? safe.w * 0.8 : safe.w * 0.92;
      const across: [number, number] = [cx - textW / 2, textW];
      // The disc holds the quote: as large as its row allows, the quote's frame inside it.
      const disc = Math.min(quote[1] * 1.12, f.width * per(f, 0.8, 0.86, 0.9, 0.6));
      const discY = quote[0] + quote[1] / 2;
      const inDisc: Box = {
        x: cx - disc * 0.39,
        y: discY - disc * 0.32,
        w: disc * 0.78,
        h: disc * 0.64,
      };
      return [
        // A soft disc behind the quote, and a smaller warm one overlapping its edge.
        circle(cx, discY, disc, { slot: 'headline', fill: 'secondary' }),
        circle(cx - disc * 0.36, discY + disc * 0.36, disc * 0.2, {
          slot: 'headline',
          fill: 'accent',
          opacity: 0.55,
        }),
        slotText('headline', inDisc, {
          size: qSize,
          font: 'heading',
          color: 'text',
          on: 'secondary',
          align: 'center',
          valign: 'middle',
          line_height: 1.05,
        }),
        hrule(cx - 32 * u, ruleRow[0], 64 * u, {
          slot: 'author',
          stroke: 'primary',
          stroke_width: 3 * u,
        }),
        slotLine('author', box(across, who), author, {
          font: 'body',
          weight: 'bold',
          color: 'primary',
          align: 'center',
          upper: true,
        }),
        slotLine('role', box(across, what), role, {
          font: 'body',
          color: 'text',
          align: 'center',
        }),
        logo({ x: cx - lg, y: lgRow[0], w: lg * 2, h: lgRow[1] }),
        slotLine('handle', box(across, tag), handle, {
          font: 'body',
          color: 'text',
          align: 'center',
          opacity: 0.8,
        }),
      ];
    },
  },
];
