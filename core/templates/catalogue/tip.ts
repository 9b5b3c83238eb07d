// Tip templates: one piece of advice, often numbered as part of a series.
import type { Box, DraftLayer, Sample, TemplateSpec } from '../kit.ts';
import {
  circle,
  cornerMask,
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
  turned,
  typeUnit,
} from './parts.ts';

const TIP_SAMPLES: Record<string, Sample> = {
  label: { short: 'Pro tip', long: 'Tip of the week for busy social media managers' },
  headline: {
    short: 'Batch your posts',
    long: 'Batch a whole month of posts in one focused afternoon instead of every morning',
  },
  cta: { short: 'Save for later', long: 'Save this post and share it with your whole team' },
};

export const TIP: TemplateSpec[] = [
  {
    name: 'tip-numbered',
    title: 'Numbered tip in bold condensed type',
    niche: 'tip',
    aspect: 'square',
    premium: false,
    tags: ['tip', 'advice', 'how to', 'series', 'number', 'typography'],
    palette: {
      primary: '#111827',
      secondary: '#fde68a',
      accent: '#ea580c',
      background: '#fef3c7',
      text: '#111827',
    },
    fonts: { heading: 'Oswald', body: 'Inter' },
    samples: TIP_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const labelSize = 26 * t;
      const chipH = lineH(labelSize, 1.1) + 22 * u;
      const chipW = Math.min(safe.w * 0.6, 340 * t);
      const logoH = per(f, 64, 72, 80, 80) * u;
      const handleSize = 30 * t;
      const footY = safeBottom(f) - lineH(handleSize);
      const top = safe.y + Math.max(chipH, logoH) + per(f, 24, 40, 64, 24) * u;
      const head: DraftLayer[] = [
        // A band of the accent colour down the page's edge.
        rect({ x: 0, y: 0, w: 24 * u, h: f.height }, { fill: 'accent' }),
        ...snugButton(
          'label',
          { x: safe.x, y: safe.y, w: chipW, h: chipH },
          {
            fill: 'primary',
            color: 'background',
            size: labelSize,
            radius: 8 * u,
            upper: true,
            pad: 20 * u,
          },
        ),
        logo({ x: safeRight(f) - 180 * u, y: safe.y, w: 180 * u, h: logoH }),
        insetRule(safe.x, footY - 20 * u, 80 * u, {
          slot: 'handle',
          stroke: 'text',
          stroke_width: 5 * u,
        }),
        slotText(
          'handle',
          { x: safe.x, y: footY, w: safe.w, h: lineH(handleSize) },
          {
            size: handleSize,
            font: 'body',
            weight: 'bold',
            color: 'text',
            fit: 'ellipsis',
          },
        ),
      ];
      const end = footY - 56 * u;
      const number = (b: Box, size: number): DraftLayer =>
        slotText('step', b, {
          size,
          min_size: size * 0.3,
          font: 'heading',
          weight: 'bold',
          color: 'accent',
          line_height: 1,
          valign: f.wide ? 'middle' : 'bottom',
        });
      if (f.wide) {
        const colW = safe.w * 0.36;
        const x = safe.x + colW + 40 * u;
        const w = safeRight(f) - x;
        const headH = (end - top) * 0.56;
        const size = 250 * t;
        return [
          ...head,
          number(
            { x: safe.x, y: top + (end - top - lineH(size, 1)) / 2, w: colW, h: lineH(size, 1) },
            size,
          ),
          slotText(
            'headline',
            { x, y: top, w, h: headH },
            {
              size: 72 * t,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              upper: true,
              line_height: 1.05,
              valign: 'bottom',
            },
          ),
          slotText(
            'body',
            { x, y: top + headH + 20 * u, w, h: end - top - headH - 20 * u },
            {
              size: 30 * t,
              font: 'body',
              color: 'text',
              line_height: 1.35,
            },
          ),
        ];
      }
      const size = per(f, 240, 300, 380, 0) * u;
      const numH = lineH(size, 1);
      const rest = end - top - numH - 24 * u;
      const headH = rest * 0.56;
      return [
        ...head,
        number({ x: safe.x, y: top, w: safe.w, h: numH }, size),
        slotText(
          'headline',
          { x: safe.x, y: top + numH + 24 * u, w: safe.w, h: headH },
          {
            size: per(f, 96, 112, 136, 0) * u,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            upper: true,
            line_height: 1.05,
          },
        ),
        slotText(
          'body',
          {
            x: safe.x,
            y: top + numH + 24 * u + headH + 16 * u,
            w: safe.w * 0.92,
            h: rest - headH - 16 * u,
          },
          {
            size: per(f, 36, 38, 44, 0) * u,
            font: 'body',
            color: 'text',
            line_height: 1.35,
          },
        ),
      ];
    },
  },
  {
    name: 'tip-photo-card',
    title: 'Tip with a rounded photo and a number badge',
    niche: 'tip',
    aspect: 'portrait',
    premium: false,
    tags: ['tip', 'advice', 'how to', 'photo', 'card', 'series'],
    palette: {
      primary: '#0f766e',
      secondary: '#ccfbf1',
      accent: '#14b8a6',
      background: '#eef6f3',
      text: '#0f2e2a',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: TIP_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const r = 40 * u;
      const d = per(f, 130, 150, 180, 150) * u;
      const labelSize = 28 * t;
      const logoH = per(f, 64, 72, 80, 72) * u;
      const handleSize = 28 * t;
      const footY = safeBottom(f) - logoH;
      const badge = (cx: number, cy: number): DraftLayer[] => [
        circle(cx, cy, d + 16 * u, { slot: 'step', fill: 'background' }),
        circle(cx, cy, d, { slot: 'step', fill: 'primary' }),
        slotText(
          'step',
          { x: cx - d * 0.36, y: cy - d * 0.36, w: d * 0.72, h: d * 0.72 },
          {
            size: 52 * (d / (150 * u)) * u,
            font: 'heading',
            weight: 'bold',
            color: '#ffffff',
            on: 'primary',
            align: 'center',
            valign: 'middle',
            line_height: 1,
          },
        ),
      ];
      const footer = (x: number, w: number): DraftLayer[] => [
        logo({ x, y: footY, w: 180 * u, h: logoH }),
        slotText(
          'handle',
          { x: x + 200 * u, y: footY, w: w - 200 * u, h: logoH },
          {
            size: handleSize,
            font: 'body',
            weight: 'bold',
            color: 'primary',
            align: 'right',
            valign: 'middle',
            line_height: 1,
            min_size: handleSize * 0.6,
          },
        ),
      ];
      if (f.wide && f.has('photo')) {
        const pic: Box = { x: safe.x, y: safe.y, w: Math.round(f.width * 0.42), h: safe.h };
        const x = pic.x + pic.w + d / 2 + 40 * u;
        const w = safeRight(f) - x;
        const headY = safe.y + lineH(labelSize) + 20 * u;
        const end = footY - 32 * u;
        const headH = (end - headY) * 0.55;
        return [
          ...photo(pic, 'secondary'),
          cornerMask(pic, r, 'background'),
          ...badge(pic.x + pic.w, safe.y + d / 2 + 40 * u),
          slotText(
            'label',
            { x, y: safe.y, w, h: lineH(labelSize) },
            {
              size: labelSize,
              font: 'body',
              weight: 'bold',
              color: 'primary',
              upper: true,
              fit: 'ellipsis',
            },
          ),
          slotText(
            'headline',
            { x, y: headY, w, h: headH },
            {
              size: 60 * t,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              line_height: 1.12,
              valign: 'bottom',
            },
          ),
          slotText(
            'body',
            { x, y: headY + headH + 16 * u, w, h: end - headY - headH - 16 * u },
            {
              size: 28 * t,
              font: 'body',
              color: 'text',
              line_height: 1.35,
            },
          ),
          ...footer(x, w),
        ];
      }
      const picTop = per(f, 72, 80, 130, 0) * u;
      const pic: Box = {
        x: safe.x,
        y: picTop,
        w: safe.w,
        h: Math.round(f.height * per(f, 0.4, 0.42, 0.41, 0)),
      };
      // Without a photo the badge heads the page and the copy takes the rest.
      const below = f.has('photo') ? pic.y + pic.h : safe.y + d / 2 + 8 * u;
      const labelY = f.has('photo') ? below + 24 * u : below - lineH(labelSize) / 2;
      const headY = below + d / 2 + per(f, 32, 40, 56, 24) * u;
      const end = footY - per(f, 32, 40, 56, 24) * u;
      const headH = (end - headY) * 0.5;
      const x = safe.x + d + 56 * u;
      return [
        ...photo(pic, 'secondary'),
        cornerMask(pic, r, 'background'),
        ...badge(safe.x + (f.has('photo') ? 24 * u : 8 * u) + d / 2, below),
        slotText(
          'label',
          { x, y: labelY, w: safeRight(f) - x, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'primary',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        slotText(
          'headline',
          { x: safe.x, y: headY, w: safe.w, h: headH },
          {
            size: per(f, 76, 88, 104, 84) * u,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.12,
            valign: f.has('photo') ? 'bottom' : 'top',
          },
        ),
        slotText(
          'body',
          { x: safe.x, y: headY + headH + 20 * u, w: safe.w, h: end - headY - headH - 20 * u },
          {
            size: per(f, 34, 36, 42, 40) * u,
            font: 'body',
            color: 'text',
            line_height: 1.35,
          },
        ),
        ...footer(safe.x, safe.w),
      ];
    },
  },
  {
    name: 'tip-sticky-note',
    title: 'Tip handwritten on a sticky note',
    niche: 'tip',
    aspect: 'story',
    premium: false,
    tags: ['tip', 'advice', 'note', 'sticky note', 'playful', 'reminder'],
    palette: {
      primary: '#1f2937',
      secondary: '#fde047',
      accent: '#60a5fa',
      background: '#dbeafe',
      text: '#1f2937',
    },
    // Caveat's strokes reach well past their advance (copy would ink outside its frame):
    // the note's headline is set in condensed Oswald instead, like a marker.
    fonts: { heading: 'Oswald', body: 'Inter' },
    samples: {
      ...TIP_SAMPLES,
      headline: {
        short: 'Post when your people are online',
        long: 'Check your insights, find the two hours your followers are most active, and post only then',
      },
    },
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const deg = -2.5;
      const logoH = per(f, 64, 72, 80, 72) * u;
      const footY = safeBottom(f) - logoH;
      const noteW = f.wide ? safe.w * 0.78 : safe.w * 0.94;
      const noteTop = safe.y + per(f, 24, 40, 40, 12) * u;
      const note: Box = {
        x: safe.x + (safe.w - noteW) / 2,
        y: noteTop,
        w: noteW,
        h: footY - per(f, 48, 64, 80, 28) * u - noteTop,
      };
      const cx = note.x + note.w / 2;
      const cy = note.y + note.h / 2;
      const pad = per(f, 64, 72, 80, 56) * u;
      const labelSize = 26 * t;
      const inner = { x: note.x + pad, w: note.w - 2 * pad };
      const headY = note.y + pad + lineH(labelSize) + 16 * u;
      const innerEnd = note.y + note.h - pad;
      const headH = (innerEnd - headY) * 0.62;
      const tape: Box = { x: cx - 110 * u, y: note.y - 26 * u, w: 220 * u, h: 56 * u };
      return [
        rect(turned({ ...note, x: note.x + 14 * u, y: note.y + 20 * u }, cx, cy, deg), {
          slot: 'headline',
          fill: '#1e3a8a',
          opacity: 0.14,
        }),
        rect(turned(note, cx, cy, deg), { slot: 'headline', fill: 'secondary', radius: 6 * u }),
        rect({ ...tape, rotation: 4 }, { slot: 'headline', fill: '#ffffff', opacity: 0.7 }),
        slotText('label', turned({ ...inner, y: note.y + pad, h: lineH(labelSize) }, cx, cy, deg), {
          size: labelSize,
          font: 'body',
          weight: 'bold',
          color: 'text',
          on: 'secondary',
          upper: true,
          fit: 'ellipsis',
        }),
        slotText('headline', turned({ ...inner, y: headY, h: headH }, cx, cy, deg), {
          size: per(f, 96, 108, 130, 84) * t,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          on: 'secondary',
          line_height: 1.0,
        }),
        slotText(
          'body',
          turned(
            { ...inner, y: headY + headH + 16 * u, h: innerEnd - headY - headH - 16 * u },
            cx,
            cy,
            deg,
          ),
          {
            size: per(f, 34, 36, 42, 26) * t,
            font: 'body',
            color: 'text',
            on: 'secondary',
            line_height: 1.35,
          },
        ),
        logo({ x: safe.x, y: footY, w: 180 * u, h: logoH }),
        slotText(
          'handle',
          { x: safe.x + 200 * u, y: footY, w: safe.w - 200 * u, h: logoH },
          {
            size: 30 * t,
            min_size: 18 * t,
            font: 'body',
            weight: 'bold',
            color: 'text',
            align: 'right',
            valign: 'middle',
            line_height: 1,
          },
        ),
      ];
    },
  },
  {
    name: 'tip-split',
    title: 'Step-by-step tip beside a photo',
    niche: 'tip',
    aspect: 'landscape',
    premium: false,
    tags: ['tip', 'advice', 'how to', 'step', 'photo', 'split', 'serif'],
    palette: {
      primary: '#9f1239',
      secondary: '#ffe4e6',
      accent: '#be123c',
      background: '#fff1f2',
      text: '#1f1720',
    },
    fonts: { heading: 'Lora', body: 'Inter' },
    samples: TIP_SAMPLES,
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
        const split = Math.round(f.width * 0.5);
        pic = { x: split, y: 0, w: f.width - split, h: f.height };
        copy = { x: safe.x, y: safe.y, w: split - 56 * u - safe.x, h: safe.h };
      } else if (f.aspect === 'story') {
        const h = Math.round(f.height * 0.44);
        pic = { x: 0, y: f.height - h, w: f.width, h };
        copy = { x: safe.x, y: safe.y, w: safe.w, h: pic.y - 64 * u - safe.y };
      } else {
        const h = Math.round(f.height * per(f, 0.4, 0.44, 0, 0));
        pic = { x: 0, y: 0, w: f.width, h };
        copy = { x: safe.x, y: h + 56 * u, w: safe.w, h: safeBottom(f) - h - 56 * u };
      }
      const big = f.has('photo') ? 1 : 1.3;
      const stepSize = per(f, 110, 130, 160, 96) * t * big;
      const labelSize = 26 * t;
      const logoH = per(f, 56, 64, 72, 64) * u;
      const stepY = copy.y + lineH(labelSize) + 4 * u;
      const headY = stepY + lineH(stepSize, 1) + 20 * u;
      const end = copy.y + copy.h - logoH - 32 * u;
      const headH = (end - headY) * 0.55;
      return [
        ...photo(pic, 'secondary'),
        insetRule(copy.x, copy.y + lineH(labelSize) / 2, 48 * u, {
          slot: 'label',
          stroke: 'accent',
          stroke_width: 4 * u,
        }),
        slotText(
          'label',
          { x: copy.x + 68 * u, y: copy.y, w: copy.w - 68 * u, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'primary',
            upper: true,
            valign: 'middle',
            fit: 'ellipsis',
          },
        ),
        slotText(
          'step',
          { x: copy.x, y: stepY, w: copy.w, h: lineH(stepSize, 1) },
          {
            size: stepSize,
            min_size: stepSize * 0.35,
            font: 'heading',
            weight: 'bold',
            color: 'accent',
            line_height: 1,
            valign: 'bottom',
          },
        ),
        slotText(
          'headline',
          { x: copy.x, y: headY, w: copy.w, h: headH },
          {
            size: per(f, 64, 76, 92, 56) * t * big,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.15,
          },
        ),
        slotText(
          'body',
          { x: copy.x, y: headY + headH + 16 * u, w: copy.w, h: end - headY - headH - 16 * u },
          {
            size: per(f, 32, 34, 40, 28) * t * big,
            font: 'body',
            color: 'text',
            line_height: 1.4,
          },
        ),
        logo({ x: copy.x, y: copy.y + copy.h - logoH, w: 180 * u, h: logoH }),
      ];
    },
  },
  {
    name: 'tip-photo-overlay',
    title: 'Tip in big type over a full photo',
    niche: 'tip',
    aspect: 'story',
    premium: true,
    tags: ['tip', 'advice', 'photo', 'bold', 'dark', 'save'],
    palette: {
      primary: '#a3e635',
      secondary: '#1f2937',
      accent: '#a3e635',
      background: '#0a0a0a',
      text: '#ffffff',
    },
    fonts: { heading: 'Bebas Neue', body: 'Inter' },
    samples: TIP_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const full: Box = { x: 0, y: 0, w: f.width, h: f.height };
      const on = '#000000' as const;
      const logoH = per(f, 72, 80, 88, 80) * u;
      const d = per(f, 120, 130, 150, 130) * u;
      const labelSize = 28 * t;
      const ctaH = per(f, 88, 96, 110, 96) * u;
      const ctaW = Math.min(safe.w, 500 * t);
      const w = f.wide ? safe.w * 0.62 : safe.w;
      const ctaY = safeBottom(f) - ctaH;
      const bodyH = per(f, 150, 190, 250, 110) * u;
      const bodyY = ctaY - 40 * u - bodyH;
      const headH = per(f, 290, 400, 520, 280) * u;
      const headY = bodyY - 20 * u - headH;
      const labelY = headY - 12 * u - lineH(labelSize);
      return [
        ...photo(full, 'secondary'),
        ...(f.wide
          ? gradedScrim(full, 'left', 0.8, 0.92)
          : gradedScrim(full, 'down', per(f, 0.05, 0.12, 0.18, 0), 0.94)),
        logo({ x: safe.x, y: safe.y, w: 200 * u, h: logoH }),
        circle(safeRight(f) - d / 2, safe.y + d / 2, d, { slot: 'step', fill: 'accent' }),
        slotText(
          'step',
          { x: safeRight(f) - d * 0.86, y: safe.y + d * 0.14, w: d * 0.72, h: d * 0.72 },
          {
            size: 64 * (d / (130 * u)) * u,
            font: 'heading',
            weight: 'bold',
            color: 'background',
            on: 'accent',
            align: 'center',
            valign: 'middle',
            line_height: 1,
          },
        ),
        insetRule(safe.x, labelY + lineH(labelSize) / 2, 40 * u, {
          slot: 'label',
          stroke: 'accent',
          stroke_width: 5 * u,
        }),
        slotText(
          'label',
          { x: safe.x + 56 * u, y: labelY, w: w - 56 * u, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'accent',
            on,
            upper: true,
            valign: 'middle',
            fit: 'ellipsis',
          },
        ),
        slotText(
          'headline',
          { x: safe.x, y: headY, w, h: headH },
          {
            size: per(f, 150, 170, 200, 120) * t,
            font: 'heading',
            weight: 'bold',
            color: '#ffffff',
            on,
            line_height: 1,
            valign: 'bottom',
          },
        ),
        slotText(
          'body',
          { x: safe.x, y: bodyY, w: f.wide ? w : w * 0.9, h: bodyH },
          {
            size: per(f, 34, 36, 42, 28) * t,
            font: 'body',
            color: '#ffffff',
            on,
            line_height: 1.35,
          },
        ),
        ...snugButton(
          'cta',
          { x: safe.x, y: ctaY, w: ctaW, h: ctaH },
          {
            fill: 'accent',
            color: 'background',
            size: per(f, 32, 34, 38, 28) * t,
            upper: true,
          },
        ),
      ];
    },
  },
];
