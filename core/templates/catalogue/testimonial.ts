// Testimonial templates: a customer's words (the headline slot), who said it, and a portrait.
import type {
  Box,
  DraftLayer,
  DraftShape,
  DraftText,
  Frame,
  Sample,
  TemplateSpec,
} from '../kit.ts';
import {
  circle,
  discMask,
  gradedScrim,
  insetRule,
  lineH,
  logo,
  per,
  photo,
  rect,
  type ShapeStyle,
  safeBottom,
  safeRight,
  slotText,
  typeUnit,
} from './parts.ts';

const QUOTE: Record<string, Sample> = {
  headline: {
    short: 'Our posts finally look like us.',
    long: 'We cut our planning time in half, and for the first time every post looks like one brand on every channel, every single week.',
  },
  role: {
    short: 'Founder, Bloom Studio',
    long: 'Head of Content Strategy at a large media company',
  },
  rating: { short: '⭐⭐⭐⭐⭐', long: '⭐⭐⭐⭐⭐' },
};

/**
 * An opening quote mark `h` tall drawn in shapes (so it can belong to a slot and go with
 * it): two commas, each a disc with a tail rising to the right.
 */
function quoteMark(
  x: number,
  y: number,
  h: number,
  style: ShapeStyle & { slot?: string },
): DraftShape[] {
  const d = h * 0.58;
  const t = h * 0.3;
  const comma = (x0: number): DraftShape[] => {
    const cx = x0 + d / 2;
    const cy = y + h - d / 2;
    const b = { x: cx - d * 0.1, y: cy };
    const top = { x: x0 + d * 0.86, y: y + t / 2 };
    const len = Math.hypot(top.x - b.x, top.y - b.y);
    const angle = (Math.atan2(top.x - b.x, b.y - top.y) * 180) / Math.PI;
    return [
      circle(cx, cy, d, style),
      {
        kind: 'shape',
        shape: 'rect',
        x: (b.x + top.x) / 2 - t / 2,
        y: (b.y + top.y) / 2 - len / 2,
        w: t,
        h: len,
        rotation: angle,
        radius: t / 2,
        ...style,
      },
    ];
  };
  return [...comma(x), ...comma(x + d + h * 0.14)];
}

/** The author's name and role, stacked, ending at `end`: their layers and the top. */
function signature(
  f: Frame,
  x: number,
  end: number,
  w: number,
  o: {
    author: number;
    role: number;
    color: DraftText['color'];
    roleColor: DraftText['color'];
    on?: DraftText['on'];
    align?: DraftText['align'];
    upper?: boolean;
  },
): { layers: DraftLayer[]; top: number } {
  const roleY = end - lineH(o.role);
  const authorY = roleY - lineH(o.author, 1.1) - 2 * f.u;
  const common = {
    font: 'body' as const,
    fit: 'ellipsis' as const,
    ...(o.on ? { on: o.on } : {}),
    ...(o.align ? { align: o.align } : {}),
  };
  return {
    top: authorY,
    layers: [
      slotText(
        'author',
        { x, y: authorY, w, h: lineH(o.author, 1.1) },
        {
          ...common,
          size: o.author,
          weight: 'bold',
          color: o.color,
          line_height: 1.1,
          ...(o.upper ? { upper: true } : {}),
        },
      ),
      slotText(
        'role',
        { x, y: roleY, w, h: lineH(o.role) },
        {
          ...common,
          size: o.role,
          color: o.roleColor,
        },
      ),
    ],
  };
}

export const TESTIMONIAL: TemplateSpec[] = [
  {
    name: 'testimonial-portrait-card',
    title: 'Customer quote on a card with a round portrait',
    niche: 'testimonial',
    aspect: 'square',
    premium: false,
    tags: ['testimonial', 'review', 'quote', 'customer', 'portrait', 'card', 'rating'],
    palette: {
      primary: '#c2410c',
      secondary: '#fde7d4',
      accent: '#ea580c',
      background: '#f4ece1',
      text: '#1c1917',
    },
    fonts: { heading: 'Playfair Display', body: 'Inter' },
    samples: QUOTE,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      // The card keeps the margins; on a story it reaches past the safe area's top and
      // bottom (only its copy keeps inside).
      const card: Box =
        f.aspect === 'story'
          ? { x: safe.x, y: 190, w: safe.w, h: f.height - 450 }
          : { x: safe.x, y: safe.y, w: safe.w, h: safe.h };
      const pad = per(f, 64, 64, 64, 72) * u;
      const on = '#ffffff' as const;
      const starSize = 40 * t;
      const innerBottom = Math.min(card.y + card.h - pad, safeBottom(f));
      const sig = {
        author: 36 * t,
        role: 28 * t,
        color: 'text',
        roleColor: 'primary',
        on,
      } as const;
      const ring = (p: Box): DraftLayer[] => [
        ...photo(p, 'secondary'),
        discMask(p, on),
        circle(p.x + p.w / 2, p.y + p.h / 2, p.w + 28 * u, {
          slot: 'photo',
          stroke: 'accent',
          stroke_width: 5 * u,
        }),
      ];
      const layers: DraftLayer[] = [
        // Two soft discs of the secondary colour peek out from behind the card's corners.
        circle(f.width - 60 * u, f.height - 60 * u, 360 * u, { fill: 'secondary' }),
        circle(60 * u, 60 * u, 200 * u, { fill: 'secondary' }),
        rect(card, { slot: 'headline', fill: on, radius: 36 * u }),
      ];
      if (f.wide) {
        const d = 340 * u;
        const p: Box = { x: card.x + pad, y: card.y + (card.h - d) / 2, w: d, h: d };
        // Without a portrait the copy takes the whole card.
        const x = f.has('photo') ? p.x + d + pad + 24 * u : card.x + pad;
        const w = card.x + card.w - pad - x;
        const logoW = 200 * u;
        const top = card.y + pad;
        const s = signature(f, x, innerBottom, w, sig);
        const quoteY = top + lineH(starSize, 1) + 20 * u;
        return [
          ...layers,
          ...ring(p),
          slotText(
            'rating',
            { x, y: top, w: w - logoW - 24 * u, h: lineH(starSize, 1) },
            {
              size: starSize,
              font: 'body',
              color: 'text',
              on,
              fit: 'ellipsis',
              line_height: 1,
            },
          ),
          logo({ x: x + w - logoW, y: top, w: logoW, h: 72 * u }),
          slotText(
            'headline',
            { x, y: quoteY, w, h: s.top - 28 * u - quoteY },
            {
              size: 62 * t,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              on,
              line_height: 1.2,
              valign: 'middle',
            },
          ),
          ...s.layers,
        ];
      }
      const d = per(f, 180, 220, 300, 0) * u;
      const x = card.x + pad;
      const w = card.w - 2 * pad;
      const p: Box = { x: card.x + (card.w - d) / 2, y: card.y + pad + 14 * u, w: d, h: d };
      const logoH = per(f, 56, 64, 80, 0) * u;
      const logoY = innerBottom - logoH;
      const s = signature(f, x, logoY - 36 * u, w, { ...sig, align: 'center' });
      const starY = f.has('photo') ? p.y + d + per(f, 36, 44, 60, 0) * u : card.y + pad + 16 * u;
      const quoteY = starY + lineH(starSize, 1) + 16 * u;
      return [
        ...layers,
        ...ring(p),
        slotText(
          'rating',
          { x, y: starY, w, h: lineH(starSize, 1) },
          {
            size: starSize,
            font: 'body',
            color: 'text',
            on,
            align: 'center',
            fit: 'ellipsis',
            line_height: 1,
          },
        ),
        slotText(
          'headline',
          { x, y: quoteY, w, h: s.top - 32 * u - quoteY },
          {
            size: per(f, 64, 76, 92, 0) * u,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            on,
            align: 'center',
            line_height: 1.2,
            valign: 'middle',
          },
        ),
        ...s.layers,
        logo({ x: card.x + (card.w - 220 * u) / 2, y: logoY, w: 220 * u, h: logoH }),
      ];
    },
  },
  {
    name: 'testimonial-photo-quote',
    title: 'Customer quote over a full photo',
    niche: 'testimonial',
    aspect: 'portrait',
    premium: true,
    tags: ['testimonial', 'review', 'quote', 'customer', 'photo', 'dark'],
    palette: {
      primary: '#f5c451',
      secondary: '#1e293b',
      accent: '#f5c451',
      background: '#0b1320',
      text: '#ffffff',
    },
    fonts: { heading: 'Lora', body: 'Inter' },
    samples: QUOTE,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const mark = per(f, 110, 120, 150, 120) * u;
      if (f.wide) {
        const split = Math.round(f.width * 0.5);
        const w = split - safe.x - 64 * u;
        const s = signature(f, safe.x, safeBottom(f), w, {
          author: 36 * t,
          role: 28 * t,
          color: 'text',
          roleColor: 'accent',
        });
        const ruleY = s.top - 24 * u;
        const quoteY = safe.y + mark + 40 * u;
        return [
          ...photo({ x: split, y: 0, w: f.width - split, h: f.height }, 'secondary'),
          ...quoteMark(safe.x, safe.y, mark, { slot: 'headline', fill: 'accent' }),
          logo({ x: split - 64 * u - 220 * u, y: safe.y, w: 220 * u, h: 88 * u }),
          slotText(
            'headline',
            { x: safe.x, y: quoteY, w, h: ruleY - 36 * u - quoteY },
            {
              size: 54 * t,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              line_height: 1.25,
              valign: 'middle',
            },
          ),
          insetRule(safe.x, ruleY, 96 * u, {
            slot: 'author',
            stroke: 'accent',
            stroke_width: 6 * u,
          }),
          ...s.layers,
        ];
      }
      const full: Box = { x: 0, y: 0, w: f.width, h: f.height };
      const on = '#000000' as const;
      const s = signature(f, safe.x, safeBottom(f), safe.w, {
        author: per(f, 40, 40, 46, 0) * u,
        role: per(f, 30, 30, 34, 0) * u,
        color: '#ffffff',
        roleColor: 'accent',
        on,
      });
      const ruleY = s.top - 28 * u;
      const quoteH = per(f, 300, 440, 600, 0) * u;
      const quoteY = ruleY - 40 * u - quoteH;
      return [
        ...photo(full, 'secondary'),
        ...gradedScrim(full, 'down', per(f, 0.12, 0.2, 0.25, 0), 0.92),
        logo({ x: safe.x, y: safe.y, w: 220 * u, h: 88 * u }),
        ...quoteMark(safeRight(f) - mark * 1.26, safe.y, mark, {
          slot: 'headline',
          fill: 'accent',
        }),
        slotText(
          'headline',
          { x: safe.x, y: quoteY, w: safe.w, h: quoteH },
          {
            size: per(f, 64, 72, 84, 0) * u,
            font: 'heading',
            weight: 'bold',
            color: '#ffffff',
            on,
            line_height: 1.25,
            valign: 'bottom',
          },
        ),
        insetRule(safe.x, ruleY, 96 * u, { slot: 'author', stroke: 'accent', stroke_width: 6 * u }),
        ...s.layers,
      ];
    },
  },
  {
    name: 'testimonial-big-type',
    title: 'Customer quote in big serif type',
    niche: 'testimonial',
    aspect: 'story',
    premium: false,
    tags: ['testimonial', 'review', 'quote', 'typography', 'serif'],
    palette: {
      primary: '#e9c46a',
      secondary: '#165a5c',
      accent: '#e9c46a',
      background: '#0f3d3e',
      text: '#f6f1e7',
    },
    fonts: { heading: 'Playfair Display', body: 'Montserrat' },
    samples: {
      ...QUOTE,
      label: { short: 'Client love', long: 'What our clients say about working with us' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const labelSize = 30 * t;
      const top = lineH(labelSize);
      const logoW = 200 * u;
      const s = signature(f, safe.x, safeBottom(f), safe.w, {
        author: 34 * t,
        role: 28 * t,
        color: 'text',
        roleColor: 'accent',
        upper: true,
      });
      const ruleY = s.top - 36 * u;
      const quoteY = safe.y + top + per(f, 60, 90, 140, 40) * u;
      const mark = per(f, 300, 380, 480, 380) * u;
      return [
        // A huge quote mark, one shade off the background, behind the copy.
        ...quoteMark(safe.x, quoteY, mark, { slot: 'headline', fill: 'secondary' }),
        slotText(
          'label',
          { x: safe.x, y: safe.y, w: safe.w - logoW - 32 * u, h: top },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'accent',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        logo({ x: safeRight(f) - logoW, y: safe.y, w: logoW, h: per(f, 64, 64, 72, 72) * u }),
        slotText(
          'headline',
          {
            x: safe.x,
            y: quoteY,
            w: f.wide ? safe.w * 0.86 : safe.w,
            h: ruleY - 48 * u - quoteY,
          },
          {
            size: per(f, 92, 104, 120, 60) * t,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.15,
            valign: 'bottom',
          },
        ),
        insetRule(safe.x, ruleY, 120 * u, {
          slot: 'author',
          stroke: 'accent',
          stroke_width: 8 * u,
        }),
        ...s.layers,
      ];
    },
  },
  {
    name: 'testimonial-split',
    title: 'Customer story: photo beside the quote',
    niche: 'testimonial',
    aspect: 'landscape',
    premium: false,
    tags: ['testimonial', 'review', 'customer story', 'photo', 'split'],
    palette: {
      primary: '#2563eb',
      secondary: '#dbeafe',
      accent: '#2563eb',
      background: '#ffffff',
      text: '#0f172a',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: {
      ...QUOTE,
      label: { short: 'Customer story', long: 'Customer story from our community of creators' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      let pic: Box;
      let copy: Box;
      if (!f.has('photo')) {
        // Without a photo the copy takes the page.
        pic = { x: 0, y: 0, w: 0, h: 0 };
        copy = { ...safe };
      } else if (f.wide) {
        const split = Math.round(f.width * 0.44);
        pic = { x: 0, y: 0, w: split, h: f.height };
        const x = split + 64 * u;
        copy = { x, y: safe.y, w: safeRight(f) - x, h: safe.h };
      } else if (f.aspect === 'story') {
        // The photo takes the lower half, the part of a story the platform covers.
        const h = Math.round(f.height * 0.46);
        pic = { x: 0, y: f.height - h, w: f.width, h };
        copy = { x: safe.x, y: safe.y, w: safe.w, h: pic.y - 72 * u - safe.y };
      } else {
        const h = Math.round(f.height * per(f, 0.42, 0.46, 0, 0));
        pic = { x: 0, y: 0, w: f.width, h };
        const y = Math.max(h + 64 * u, safe.y);
        copy = { x: safe.x, y, w: safe.w, h: safeBottom(f) - y };
      }
      const labelSize = 28 * t;
      const logoW = 180 * u;
      const s = signature(f, copy.x, copy.y + copy.h, copy.w, {
        author: per(f, 36, 38, 44, 32) * t,
        role: per(f, 28, 30, 34, 26) * t,
        color: 'text',
        roleColor: 'primary',
      });
      const logoH = per(f, 64, 72, 80, 80) * u;
      const quoteY = copy.y + Math.max(lineH(labelSize), logoH) + 28 * u;
      const quoteH = s.top - 40 * u - quoteY;
      const bar = 10 * u;
      const edge = 14 * u;
      return [
        ...photo(pic, 'secondary'),
        // A band of the primary colour along the photo's inner edge.
        rect(
          f.wide
            ? { x: pic.w - edge, y: 0, w: edge, h: f.height }
            : { x: 0, y: pic.y === 0 ? pic.h - edge : pic.y, w: f.width, h: edge },
          { slot: 'photo', fill: 'primary' },
        ),
        slotText(
          'label',
          { x: copy.x, y: copy.y, w: copy.w - logoW - 24 * u, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'primary',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        logo({ x: copy.x + copy.w - logoW, y: copy.y, w: logoW, h: logoH }),
        rect(
          { x: copy.x, y: quoteY + 8 * u, w: bar, h: quoteH - 16 * u },
          {
            slot: 'headline',
            fill: 'primary',
            radius: bar / 2,
          },
        ),
        slotText(
          'headline',
          { x: copy.x + bar + 32 * u, y: quoteY, w: copy.w - bar - 32 * u, h: quoteH },
          {
            size: per(f, 54, 62, 76, 50) * t * (f.has('photo') ? 1 : 1.3),
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.22,
            valign: 'middle',
          },
        ),
        ...s.layers,
      ];
    },
  },
  {
    name: 'testimonial-review-card',
    title: 'Five-star review with avatar',
    niche: 'testimonial',
    aspect: 'square',
    premium: false,
    tags: ['testimonial', 'review', 'rating', 'stars', 'minimal', 'avatar'],
    palette: {
      primary: '#6d28d9',
      secondary: '#ddd6fe',
      accent: '#7c3aed',
      background: '#f5f3ff',
      text: '#1e1b4b',
    },
    fonts: { heading: 'Inter', body: 'Inter' },
    samples: QUOTE,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const starSize = 44 * t;
      const logoH = per(f, 64, 72, 80, 80) * u;
      const topH = Math.max(logoH, lineH(starSize, 1));
      const avatar = per(f, 120, 136, 160, 160) * u;
      const rowY = safeBottom(f) - avatar;
      const mark = per(f, 90, 100, 130, 100) * u;
      const markY = safe.y + topH + per(f, 56, 72, 110, 40) * u;
      const quoteY = markY + mark + per(f, 28, 32, 40, 24) * u;
      const quoteH = rowY - per(f, 48, 64, 80, 40) * u - quoteY;
      const a: Box = { x: safe.x, y: rowY, w: avatar, h: avatar };
      const textX = f.has('photo') ? safe.x + avatar + 32 * u : safe.x;
      const s = signature(
        f,
        textX,
        rowY + avatar / 2 + lineH(30 * t) - 6 * u,
        safeRight(f) - textX,
        {
          author: 36 * t,
          role: 28 * t,
          color: 'text',
          roleColor: 'primary',
        },
      );
      return [
        // Soft discs behind the top right corner and, on tall pages, the bottom left.
        circle(f.width - 80 * u, 120 * u, 520 * u, { fill: 'secondary', opacity: 0.6 }),
        ...(f.tall
          ? [circle(f.width, f.height, 560 * u, { fill: 'secondary', opacity: 0.6 })]
          : []),
        logo({ x: safe.x, y: safe.y, w: 200 * u, h: logoH }),
        slotText(
          'rating',
          { x: safe.x + safe.w / 2, y: safe.y, w: safe.w / 2, h: lineH(starSize, 1) },
          {
            size: starSize,
            font: 'body',
            color: 'text',
            align: 'right',
            fit: 'ellipsis',
            line_height: 1,
          },
        ),
        ...quoteMark(safe.x, markY, mark, { slot: 'headline', fill: 'primary' }),
        slotText(
          'headline',
          { x: safe.x, y: quoteY, w: safe.w, h: quoteH },
          {
            size: per(f, 80, 100, 120, 64) * t,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.18,
            valign: f.wide ? 'middle' : 'top',
          },
        ),
        ...photo(a, 'secondary'),
        discMask(a, 'background'),
        ...s.layers,
      ];
    },
  },
];
