// Stat templates: one number, big, and what it means.
import type { Box, DraftLayer, DraftText, Frame, Sample, TemplateSpec } from '../kit.ts';
import {
  circle,
  gradedScrim,
  insetRule,
  lineH,
  logo,
  per,
  photo,
  rect,
  safeBottom,
  safeRight,
  slotText,
  snugButton,
  typeUnit,
} from './parts.ts';

const STAT_SAMPLES: Record<string, Sample> = {
  headline: {
    short: 'of teams post more consistently',
    long: 'of marketing teams say a shared calendar helped them publish more consistently this year',
  },
  label: { short: 'By the numbers', long: 'Key findings from our annual state of social report' },
};

/**
 * The stat itself: one line that shrinks (to 30%) rather than wrap or be cut; the frame is
 * one line at full size.
 */
const number = (
  b: { x: number; y: number; w: number },
  size: number,
  style: Omit<DraftText, 'kind' | 'slot' | 'text' | 'x' | 'y' | 'w' | 'h' | 'size'>,
): DraftText =>
  slotText(
    'number',
    { ...b, h: lineH(size, 1) },
    {
      size,
      min_size: size * 0.3,
      line_height: 1,
      weight: 'bold',
      ...style,
    },
  );

/** The source line, small and quiet. */
const source = (b: Box, f: Frame, style: Partial<DraftText> = {}): DraftText =>
  slotText('source', b, {
    size: 24 * typeUnit(f),
    font: 'body',
    color: 'text',
    fit: 'ellipsis',
    ...style,
  });

export const STAT: TemplateSpec[] = [
  {
    name: 'stat-big-number',
    title: 'One big number on a dark field',
    niche: 'stat',
    aspect: 'square',
    premium: false,
    tags: ['stat', 'number', 'data', 'percentage', 'typography', 'dark'],
    palette: {
      primary: '#facc15',
      secondary: '#312e81',
      accent: '#facc15',
      background: '#1e1b4b',
      text: '#ffffff',
    },
    fonts: { heading: 'Bebas Neue', body: 'Inter' },
    samples: STAT_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const labelSize = 28 * t;
      const logoH = per(f, 64, 72, 80, 72) * u;
      const sourceSize = 24 * t;
      const sourceY = safeBottom(f) - lineH(sourceSize);
      const top = safe.y + Math.max(logoH, lineH(labelSize)) + 24 * u;
      const head: DraftLayer[] = [
        // Concentric rings of the secondary colour behind the number.
        circle(f.width * 0.82, f.height * 0.4, 900 * u, {
          stroke: 'secondary',
          stroke_width: 60 * u,
        }),
        circle(f.width * 0.82, f.height * 0.4, 520 * u, { fill: 'secondary' }),
        slotText(
          'label',
          { x: safe.x, y: safe.y, w: safe.w - 220 * u, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'accent',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        logo({ x: safeRight(f) - 180 * u, y: safe.y, w: 180 * u, h: logoH }),
        source({ x: safe.x, y: sourceY, w: safe.w, h: lineH(sourceSize) }, f, {
          size: sourceSize,
        }),
      ];
      if (f.wide) {
        const colW = safe.w * 0.5;
        const size = 480 * u;
        const x = safe.x + colW + 48 * u;
        const numY = top + (sourceY - 24 * u - top - lineH(size, 1)) / 2;
        return [
          ...head,
          number({ x: safe.x, y: numY, w: colW }, size, {
            font: 'heading',
            color: 'accent',
            valign: 'middle',
          }),
          rect(
            { x, y: top + 24 * u, w: 10 * u, h: sourceY - 72 * u - top },
            {
              slot: 'headline',
              fill: 'accent',
            },
          ),
          slotText(
            'headline',
            { x: x + 40 * u, y: top, w: safeRight(f) - x - 40 * u, h: sourceY - 24 * u - top },
            {
              size: 52 * t,
              font: 'body',
              weight: 'bold',
              color: 'text',
              line_height: 1.2,
              valign: 'middle',
            },
          ),
        ];
      }
      const size = per(f, 360, 400, 400, 0) * u;
      const numY = top + per(f, 0, 40, 80, 0) * u;
      const barY = numY + lineH(size, 1) + 8 * u;
      const headY = barY + 12 * u + 40 * u;
      return [
        ...head,
        number({ x: safe.x, y: numY, w: safe.w }, size, {
          font: 'heading',
          color: 'accent',
          valign: 'bottom',
        }),
        rect({ x: safe.x, y: barY, w: 140 * u, h: 12 * u }, { slot: 'number', fill: 'accent' }),
        slotText(
          'headline',
          { x: safe.x, y: headY, w: safe.w * 0.9, h: sourceY - 40 * u - headY },
          {
            size: per(f, 60, 68, 80, 0) * u,
            font: 'body',
            weight: 'bold',
            color: 'text',
            line_height: 1.2,
          },
        ),
      ];
    },
  },
  {
    name: 'stat-circle',
    title: 'Stat inside a big circle',
    niche: 'stat',
    aspect: 'portrait',
    premium: false,
    tags: ['stat', 'number', 'data', 'infographic', 'circle', 'light'],
    palette: {
      primary: '#0e7490',
      secondary: '#a5f3fc',
      accent: '#f97316',
      background: '#ecfeff',
      text: '#083344',
    },
    fonts: { heading: 'Montserrat', body: 'Roboto' },
    samples: STAT_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const logoH = per(f, 64, 72, 80, 72) * u;
      const sourceSize = 24 * t;
      const disc = (cx: number, cy: number, d: number): DraftLayer[] => {
        const ring = d + 56 * u;
        // A progress knob on the ring, at about two o'clock.
        const a = -Math.PI / 5;
        const knob = 44 * u;
        return [
          circle(cx, cy, ring, { slot: 'number', stroke: 'secondary', stroke_width: 16 * u }),
          circle(cx, cy, d, { slot: 'number', fill: 'primary' }),
          circle(cx + (ring / 2) * Math.cos(a), cy + (ring / 2) * Math.sin(a), knob, {
            slot: 'number',
            fill: 'accent',
          }),
          number({ x: cx - d * 0.4, y: cy - lineH(d * 0.3, 1) / 2, w: d * 0.8 }, d * 0.3, {
            font: 'heading',
            color: '#ffffff',
            on: 'primary',
            align: 'center',
            valign: 'middle',
          }),
        ];
      };
      if (f.wide) {
        const d = safe.h * 0.78;
        const cx = safe.x + d / 2 + 28 * u;
        const cy = f.height / 2;
        const x = safe.x + d + 56 * u + 64 * u;
        const w = safeRight(f) - x;
        const sourceY = safeBottom(f) - lineH(sourceSize);
        const headY = safe.y + logoH + 32 * u;
        return [
          ...disc(cx, cy, d),
          logo({ x, y: safe.y, w: 180 * u, h: logoH }),
          slotText(
            'headline',
            { x, y: headY, w, h: sourceY - 32 * u - headY },
            {
              size: 50 * t,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              line_height: 1.2,
              valign: 'middle',
            },
          ),
          source({ x, y: sourceY, w, h: lineH(sourceSize) }, f, { color: 'primary' }),
        ];
      }
      const d = per(f, 480, 580, 700, 0) * u;
      const cy = safe.y + logoH + per(f, 48, 80, 120, 0) * u + d / 2 + 28 * u;
      const sourceY = safeBottom(f) - lineH(sourceSize);
      const headY = cy + d / 2 + 28 * u + per(f, 40, 56, 80, 0) * u;
      return [
        logo({ x: f.width / 2 - 90 * u, y: safe.y, w: 180 * u, h: logoH }),
        ...disc(f.width / 2, cy, d),
        slotText(
          'headline',
          { x: safe.x, y: headY, w: safe.w, h: sourceY - 32 * u - headY },
          {
            size: per(f, 52, 60, 72, 0) * u,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            align: 'center',
            line_height: 1.2,
          },
        ),
        source({ x: safe.x, y: sourceY, w: safe.w, h: lineH(sourceSize) }, f, {
          color: 'primary',
          align: 'center',
        }),
      ];
    },
  },
  {
    name: 'stat-photo-split',
    title: 'Stat beside a photo with a slanted edge',
    niche: 'stat',
    aspect: 'landscape',
    premium: false,
    tags: ['stat', 'number', 'data', 'photo', 'split', 'report'],
    palette: {
      primary: '#166534',
      secondary: '#dcfce7',
      accent: '#15803d',
      background: '#ffffff',
      text: '#052e16',
    },
    fonts: { heading: 'Oswald', body: 'Roboto' },
    samples: STAT_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const labelSize = 26 * t;
      const sourceSize = 24 * t;
      const logoH = per(f, 56, 64, 72, 64) * u;
      let pic: Box;
      let copy: Box;
      let slant: DraftLayer;
      if (!f.has('photo')) {
        // Without a photo the copy takes the page.
        pic = { x: 0, y: 0, w: 0, h: 0 };
        copy = { ...safe };
        slant = rect(pic, { slot: 'photo' });
      } else if (f.wide) {
        const split = Math.round(f.width * 0.46);
        pic = { x: split, y: 0, w: f.width - split, h: f.height };
        copy = { x: safe.x, y: safe.y, w: split - safe.x, h: safe.h };
        // A background-coloured band turned a little: the photo's left edge slants.
        slant = rect(
          { x: split - 160, y: -200, w: 200, h: f.height + 400, rotation: 8 },
          {
            slot: 'photo',
            fill: 'background',
          },
        );
      } else {
        const tall = f.aspect === 'story';
        const h = Math.round(f.height * per(f, 0.42, 0.44, 0.46, 0));
        pic = tall ? { x: 0, y: f.height - h, w: f.width, h } : { x: 0, y: 0, w: f.width, h };
        const y = tall ? safe.y : Math.max(h + 56 * u, safe.y);
        copy = { x: safe.x, y, w: safe.w, h: (tall ? pic.y - 80 * u : safeBottom(f)) - y };
        const edge = tall ? pic.y : pic.h;
        slant = rect(
          { x: -200, y: edge - (tall ? 140 : 60) * u, w: f.width + 400, h: 200 * u, rotation: -5 },
          { slot: 'photo', fill: 'background' },
        );
      }
      const size = Math.min(
        400,
        per(f, 220, 260, 300, 240) * t * (f.wide ? 0.8 : 1) * (f.has('photo') ? 1 : 1.4),
      );
      const numY = copy.y + lineH(labelSize) + 8 * u;
      const barY = numY + lineH(size, 1) + 4 * u;
      const headY = barY + 36 * u;
      const end = copy.y + copy.h - Math.max(logoH, lineH(sourceSize)) - 28 * u;
      return [
        ...photo(pic, 'secondary'),
        slant,
        slotText(
          'label',
          { x: copy.x, y: copy.y, w: copy.w, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'primary',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        number({ x: copy.x, y: numY, w: copy.w * (f.wide ? 0.9 : 1) }, size, {
          font: 'heading',
          color: 'accent',
          valign: 'bottom',
        }),
        insetRule(copy.x, barY, 120 * u, { slot: 'number', stroke: 'text', stroke_width: 8 * u }),
        slotText(
          'headline',
          { x: copy.x, y: headY, w: copy.w * (f.wide ? 0.86 : 0.92), h: end - headY },
          {
            size: per(f, 52, 60, 72, 44) * t * (f.has('photo') ? 1 : 1.2),
            font: 'body',
            weight: 'bold',
            color: 'text',
            line_height: 1.2,
          },
        ),
        source(
          {
            x: copy.x,
            y: copy.y + copy.h - lineH(sourceSize),
            w: copy.w * (f.wide ? 0.86 : 1) - 200 * u,
            h: lineH(sourceSize),
          },
          f,
          { size: sourceSize, color: 'primary' },
        ),
        logo({
          x: copy.x + copy.w * (f.wide ? 0.86 : 1) - 180 * u,
          y: copy.y + copy.h - logoH,
          w: 180 * u,
          h: logoH,
        }),
      ];
    },
  },
  {
    name: 'stat-photo-overlay',
    title: 'Huge stat over a full photo',
    niche: 'stat',
    aspect: 'story',
    premium: true,
    tags: ['stat', 'number', 'data', 'photo', 'bold', 'dark'],
    palette: {
      primary: '#ff5a36',
      secondary: '#262626',
      accent: '#ff5a36',
      background: '#111111',
      text: '#ffffff',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: STAT_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const full: Box = { x: 0, y: 0, w: f.width, h: f.height };
      const on = '#000000' as const;
      const logoH = per(f, 72, 80, 88, 80) * u;
      const labelSize = 26 * t;
      const chipH = lineH(labelSize, 1.1) + 24 * u;
      const sourceSize = 24 * t;
      const w = f.wide ? safe.w * 0.6 : safe.w;
      const sourceY = safeBottom(f) - lineH(sourceSize);
      const headH = per(f, 200, 260, 340, 170) * u;
      const headY = sourceY - 32 * u - headH;
      const size = per(f, 300, 330, 360, 250) * u;
      const barY = headY - 32 * u;
      const numY = barY - 12 * u - lineH(size, 1);
      const chipY = numY - 16 * u - chipH;
      return [
        ...photo(full, 'secondary'),
        ...(f.wide
          ? gradedScrim(full, 'left', 0.85, 0.94)
          : gradedScrim(full, 'down', per(f, 0, 0.1, 0.15, 0), 0.94)),
        logo({ x: safe.x, y: safe.y, w: 200 * u, h: logoH }),
        ...snugButton(
          'label',
          { x: safe.x, y: chipY, w: Math.min(w, 380 * t), h: chipH },
          {
            fill: 'accent',
            color: 'background',
            size: labelSize,
            radius: chipH / 2,
            upper: true,
            pad: 28 * u,
          },
        ),
        number({ x: safe.x, y: numY, w }, size, {
          font: 'heading',
          color: '#ffffff',
          on,
          valign: 'bottom',
        }),
        rect({ x: safe.x, y: barY, w: 160 * u, h: 12 * u }, { slot: 'number', fill: 'accent' }),
        slotText(
          'headline',
          { x: safe.x, y: headY, w: w * 0.95, h: headH },
          {
            size: per(f, 54, 60, 70, 40) * t,
            font: 'heading',
            weight: 'bold',
            color: '#ffffff',
            on,
            line_height: 1.2,
          },
        ),
        source({ x: safe.x, y: sourceY, w, h: lineH(sourceSize) }, f, {
          size: sourceSize,
          color: '#ffffff',
          on,
        }),
      ];
    },
  },
  {
    name: 'stat-photo-card',
    title: 'Stat on a card over a photo',
    niche: 'stat',
    aspect: 'portrait',
    premium: false,
    tags: ['stat', 'number', 'data', 'photo', 'card', 'elegant', 'serif'],
    palette: {
      primary: '#be185d',
      secondary: '#fce7f3',
      accent: '#db2777',
      background: '#fdf2f8',
      text: '#1f1724',
    },
    fonts: { heading: 'Playfair Display', body: 'Inter' },
    samples: STAT_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const on = '#ffffff' as const;
      const logoH = per(f, 72, 80, 88, 80) * u;
      const labelSize = 24 * t;
      const sourceSize = 22 * t;
      let pic: Box;
      let card: Box;
      if (!f.has('photo')) {
        // Without a photo the card takes the page below the logo.
        pic = { x: 0, y: 0, w: 0, h: 0 };
        const top = f.has('logo') ? safe.y + logoH + 32 * u : safe.y;
        card = { x: safe.x, y: top, w: safe.w, h: safeBottom(f) - top };
      } else if (f.wide) {
        pic = { x: 0, y: 0, w: Math.round(f.width * 0.5), h: f.height };
        card = {
          x: pic.w - 120 * u,
          y: safe.y + 24 * u,
          w: safeRight(f) - pic.w + 120 * u,
          h: safe.h - 48 * u,
        };
      } else {
        pic = { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.56, 0.6, 0.56, 0)) };
        const top = pic.h - per(f, 200, 240, 280, 0) * u;
        // On a story the card runs on below the safe area; its copy stays inside.
        card = {
          x: safe.x,
          y: top,
          w: safe.w,
          h: safeBottom(f) + (f.aspect === 'story' ? 80 : 0) - top,
        };
      }
      const pad = per(f, 56, 64, 72, 56) * u;
      const innerEnd = Math.min(card.y + card.h - pad, safeBottom(f));
      const inner = {
        x: card.x + pad,
        y: card.y + pad,
        w: card.w - 2 * pad,
        h: innerEnd - card.y - pad,
      };
      const size = per(f, 200, 240, 280, 220) * t * (f.wide ? 0.8 : 1);
      const numY = inner.y + lineH(labelSize) + 8 * u;
      const headY = numY + lineH(size, 1) + 16 * u;
      const sourceY = inner.y + inner.h - lineH(sourceSize);
      return [
        ...photo(pic, 'secondary'),
        logo({ x: safe.x, y: safe.y, w: 200 * u, h: logoH }),
        rect(
          { ...card, x: card.x + 16 * u, y: card.y + 20 * u },
          {
            slot: 'number',
            fill: '#000000',
            opacity: 0.12,
            radius: 28 * u,
          },
        ),
        rect(card, { slot: 'number', fill: on, radius: 28 * u }),
        rect(
          { x: card.x, y: card.y + 48 * u, w: 10 * u, h: 120 * u },
          {
            slot: 'number',
            fill: 'accent',
          },
        ),
        slotText(
          'label',
          { x: inner.x, y: inner.y, w: inner.w, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'primary',
            on,
            upper: true,
            fit: 'ellipsis',
          },
        ),
        number({ x: inner.x, y: numY, w: inner.w }, size, {
          font: 'heading',
          color: 'primary',
          on,
          valign: 'bottom',
        }),
        slotText(
          'headline',
          { x: inner.x, y: headY, w: inner.w, h: sourceY - 20 * u - headY },
          {
            size: per(f, 48, 56, 68, 40) * t,
            font: 'body',
            weight: 'bold',
            color: 'text',
            on,
            line_height: 1.25,
          },
        ),
        source({ x: inner.x, y: sourceY, w: inner.w, h: lineH(sourceSize) }, f, {
          size: sourceSize,
          color: 'text',
          on,
        }),
      ];
    },
  },
];
