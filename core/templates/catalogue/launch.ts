// Launch and announcement templates: a new product, feature or service, with a photo or without.
import type { Box, Frame, TemplateSpec } from '../kit.ts';
import {
  box,
  button,
  circle,
  fr,
  linesH,
  logo,
  per,
  photo,
  rect,
  safeEnds,
  slotLine,
  slotText,
  split,
  stackedScrim,
} from './parts.ts';

/**
 * A photo on one side (landscape) or on top (the other aspects), the copy in the rest; the
 * copy takes the whole safe area when there is no photo.
 */
function photoAndCopy(f: Frame) {
  const { safe, u } = f;
  if (!f.has('photo')) return { photo: { x: 0, y: 0, w: 0, h: 0 }, copy: safe };
  if (f.wide) {
    const photoW = Math.round(f.width * 0.46);
    const x = photoW + 56 * u;
    return {
      photo: { x: 0, y: 0, w: photoW, h: f.height },
      copy: { x, y: safe.y, w: f.width - x - (f.width - safe.x - safe.w), h: safe.h },
    };
  }
  const photoH = Math.round(f.height * (f.aspect === 'story' ? 0.5 : 0.52));
  return {
    photo: { x: 0, y: 0, w: f.width, h: photoH },
    copy: { x: safe.x, y: photoH + 56 * u, w: safe.w, h: safe.y + safe.h - photoH - 56 * u },
  };
}

export const LAUNCH: TemplateSpec[] = [
  {
    name: 'launch-photo-split',
    title: 'Product launch: photo and copy',
    niche: 'launch',
    aspect: 'portrait',
    premium: false,
    tags: ['launch', 'announcement', 'new', 'photo'],
    palette: {
      primary: '#4f46e5',
      secondary: '#c7d2fe',
      accent: '#f59e0b',
      background: '#ffffff',
      text: '#0f172a',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    layout: (f) => {
      const { u } = f;
      const { photo, copy } = photoAndCopy(f);
      const label = 44 * u;
      const cta = 96 * u;
      const logo = 96 * u;
      const headlineTop = copy.y + label + 28 * u;
      const ctaTop = copy.y + copy.h - cta;
      const bodyH = Math.round((ctaTop - headlineTop - 48 * u) * 0.38);
      const headlineH = ctaTop - headlineTop - 48 * u - bodyH - 24 * u;
      return [
        { kind: 'shape', slot: 'photo', shape: 'rect', ...photo, fill: 'secondary' },
        { kind: 'image', slot: 'photo', ...photo },
        // The logo sits on a white disc in the photo's corner, inside the safe area.
        {
          kind: 'shape',
          slot: 'logo',
          shape: 'ellipse',
          x: f.safe.x,
          y: f.safe.y,
          w: logo + 24 * u,
          h: logo + 24 * u,
          fill: '#ffffff',
        },
        {
          kind: 'image',
          slot: 'logo',
          fit: 'contain',
          x: f.safe.x + 12 * u,
          y: f.safe.y + 12 * u,
          w: logo,
          h: logo,
        },
        {
          kind: 'text',
          slot: 'label',
          x: copy.x,
          y: copy.y,
          w: copy.w,
          h: label,
          size: 32 * u,
          font: 'heading',
          weight: 'bold',
          color: 'primary',
          upper: true,
          fit: 'ellipsis',
        },
        {
          kind: 'text',
          slot: 'headline',
          x: copy.x,
          y: headlineTop,
          w: copy.w,
          h: headlineH,
          size: 84 * u,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.1,
        },
        {
          kind: 'text',
          slot: 'body',
          x: copy.x,
          y: headlineTop + headlineH + 24 * u,
          w: copy.w,
          h: bodyH,
          size: 38 * u,
          font: 'body',
          color: 'text',
          line_height: 1.35,
        },
        {
          kind: 'shape',
          slot: 'cta',
          shape: 'rect',
          x: copy.x,
          y: ctaTop,
          w: Math.min(copy.w, 440 * u),
          h: cta,
          fill: 'primary',
          radius: cta / 2,
        },
        {
          kind: 'text',
          slot: 'cta',
          x: copy.x + 32 * u,
          y: ctaTop,
          w: Math.min(copy.w, 440 * u) - 64 * u,
          h: cta,
          size: 36 * u,
          font: 'body',
          weight: 'bold',
          color: '#ffffff',
          on: 'primary',
          align: 'center',
          valign: 'middle',
          fit: 'ellipsis',
        },
      ];
    },
  },
  {
    name: 'launch-big-type',
    title: 'Announcement in big type on a colour field',
    niche: 'launch',
    aspect: 'square',
    premium: false,
    tags: ['launch', 'announcement', 'bold', 'typography'],
    palette: {
      primary: '#111827',
      secondary: '#fde68a',
      accent: '#f43f5e',
      background: '#fde68a',
      text: '#111827',
    },
    fonts: { heading: 'Bebas Neue', body: 'Inter' },
    layout: (f) => {
      const { safe, u } = f;
      const ring = Math.min(f.width, f.height) * 0.5;
      const logo = 88 * u;
      const footer = 64 * u;
      const top = safe.y + logo + 40 * u;
      const bottom = safe.y + safe.h - footer - 32 * u;
      const headlineH = (bottom - top) * (f.wide ? 0.62 : 0.66);
      return [
        // A circle cut by the corner: the same size on every aspect, never stretched.
        {
          kind: 'shape',
          shape: 'ellipse',
          x: f.width - ring * 0.7,
          y: -ring * 0.3,
          w: ring,
          h: ring,
          fill: 'accent',
          opacity: 0.9,
        },
        {
          kind: 'image',
          slot: 'logo',
          fit: 'contain',
          x: safe.x,
          y: safe.y,
          w: logo * 2.5,
          h: logo,
        },
        {
          kind: 'text',
          slot: 'headline',
          x: safe.x,
          y: top,
          w: f.wide ? safe.w * 0.8 : safe.w,
          h: headlineH,
          size: (f.tall ? 200 : 180) * u,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.0,
          valign: 'bottom',
        },
        {
          kind: 'text',
          slot: 'body',
          x: safe.x,
          y: top + headlineH + 24 * u,
          w: f.wide ? safe.w * 0.7 : safe.w * 0.85,
          h: bottom - top - headlineH - 24 * u,
          size: 40 * u,
          font: 'body',
          color: 'text',
          line_height: 1.35,
        },
        {
          kind: 'shape',
          slot: 'date',
          shape: 'line',
          x: safe.x,
          y: safe.y + safe.h - footer,
          w: 80 * u,
          h: 0,
          stroke: 'text',
          stroke_width: 6 * u,
        },
        {
          kind: 'text',
          slot: 'date',
          x: safe.x,
          y: safe.y + safe.h - footer + 12 * u,
          w: safe.w / 2,
          h: footer - 12 * u,
          size: 36 * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          upper: true,
          fit: 'ellipsis',
        },
        {
          kind: 'text',
          slot: 'handle',
          x: safe.x + safe.w / 2,
          y: safe.y + safe.h - footer + 12 * u,
          w: safe.w / 2,
          h: footer - 12 * u,
          size: 36 * u,
          font: 'body',
          color: 'text',
          align: 'right',
          fit: 'ellipsis',
        },
      ];
    },
  },
  {
    name: 'launch-full-bleed',
    title: 'Launch story: full-bleed photo with a bold headline',
    niche: 'launch',
    aspect: 'story',
    premium: true,
    tags: ['launch', 'announcement', 'new', 'photo', 'story', 'full bleed'],
    palette: {
      primary: '#d9381e',
      secondary: '#2b2522',
      accent: '#ffd166',
      background: '#141210',
      text: '#ffffff',
    },
    fonts: { heading: 'Oswald', body: 'Inter' },
    layout: (f) => {
      const { safe, u } = f;
      const { bottom } = safeEnds(f);
      const lg = per(f, 88, 92, 104, 88) * u;
      const col: Box = f.wide ? { x: safe.x, y: safe.y, w: safe.w * 0.58, h: safe.h } : safe;
      const top = f.wide ? safe.y + lg + 40 * u : safe.y + safe.h * per(f, 0.22, 0.3, 0.3, 0);
      const btnH = per(f, 96, 100, 112, 96) * u;
      const [head, , body, , btn] = split(top, bottom - top, [
        fr(1),
        28 * u,
        per(f, 120, 150, 190, 150) * u,
        40 * u,
        btnH,
      ]);
      const btnW = Math.min(col.w, per(f, 440, 480, 520, 440) * u);
      // The label: a sticker in the top corner, across from the logo.
      const chipH = per(f, 60, 64, 72, 60) * u;
      const chipW = per(f, 300, 320, 340, 300) * u;
      const chipX = col.x + col.w - chipW;
      const chipY = safe.y + (lg - chipH) / 2;
      return [
        ...photo({ x: 0, y: 0, w: f.width, h: f.height }, 'secondary'),
        ...(f.wide
          ? stackedScrim({ x: 0, y: 0, w: f.width * 0.8, h: f.height }, 'left', 0.85, 28)
          : stackedScrim(
              { x: 0, y: f.height * 0.22, w: f.width, h: f.height * 0.78 },
              'down',
              0.9,
              28,
            )),
        logo({ x: safe.x, y: safe.y, w: lg, h: lg }),
        ...button(
          'label',
          { x: chipX, y: chipY, w: chipW, h: chipH },
          {
            fill: 'accent',
            color: 'background',
            size: 28 * u,
            upper: true,
          },
        ),
        slotText('headline', box([col.x, col.w], head), {
          size: per(f, 128, 140, 168, 100) * u,
          min_size: per(f, 52, 56, 64, 40) * u,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          on: '#000000',
          upper: true,
          line_height: 1.02,
          valign: 'bottom',
        }),
        slotText('body', box([col.x, f.wide ? col.w : col.w * 0.92], body), {
          size: per(f, 34, 36, 40, 32) * u,
          font: 'body',
          color: 'text',
          on: '#000000',
          line_height: 1.35,
        }),
        ...button('cta', box([col.x, btnW], btn), {
          fill: 'primary',
          color: '#ffffff',
          size: per(f, 34, 34, 38, 34) * u,
          upper: true,
        }),
      ];
    },
  },
  {
    name: 'launch-coming-soon',
    title: 'Coming soon: centred headline with a date pill',
    niche: 'launch',
    aspect: 'landscape',
    premium: false,
    tags: ['launch', 'coming soon', 'teaser', 'countdown', 'date', 'dark', 'centred'],
    palette: {
      primary: '#6a48f5',
      secondary: '#25306b',
      accent: '#7cf2c9',
      background: '#0b1020',
      text: '#f4f5fb',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    layout: (f) => {
      const { safe, u } = f;
      const { bottom } = safeEnds(f);
      const cx = f.width / 2;
      const lg = per(f, 80, 88, 100, 80) * u;
      const hSize = per(f, 104, 112, 132, 88) * u;
      const headLines = per(f, 2, 3, 3, 2);
      const pillH = per(f, 92, 96, 108, 88) * u;
      const bodyH = per(f, 110, 150, 190, 96) * u;
      const footH = 44 * u;
      const labelSize = per(f, 32, 34, 38, 32) * u;
      const group = [
        linesH(1, labelSize, 1.15),
        24 * u,
        linesH(headLines, hSize, 1.05),
        40 * u,
        pillH,
        36 * u,
        bodyH,
      ] as const;
      const total = group.reduce((s, v) => s + v, 0);
      const roomTop = safe.y + lg + 24 * u;
      const roomBottom = bottom - footH - 24 * u;
      const start = roomTop + Math.max(0, (roomBottom - roomTop - total) / 2);
      const [label, , head, , date, , body] = split(start, total, group);
      // Centred on the canvas, as wide as the safe area allows on both sides of the centre.
      const half = Math.min(cx - safe.x, safe.x + safe.w - cx);
      const textW = f.wide ? safe.w * 0.78 : 2 * half;
      const across: [number, number] = [cx - textW / 2, textW];
      const pillW = Math.min(safe.w, per(f, 560, 600, 640, 600) * u);
      const ring = Math.max(f.width, f.height) * 0.62;
      const ringStyle = { fill: null, stroke: 'secondary', stroke_width: 3 * u } as const;
      return [
        // Rings cut by two corners: decoration that reads as deliberate with no copy at all.
        circle(f.width, 0, ring, ringStyle),
        circle(f.width, 0, ring * 0.72, ringStyle),
        circle(0, f.height, ring * 0.86, ringStyle),
        logo({ x: cx - lg, y: safe.y, w: lg * 2, h: lg }),
        slotText('label', box(across, label), {
          size: labelSize,
          line_height: 1.15,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          align: 'center',
          valign: 'middle',
          fit: 'ellipsis',
        }),
        slotText('headline', box(across, head), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          align: 'center',
          valign: 'middle',
          line_height: 1.05,
        }),
        rect(box([cx - pillW / 2, pillW], date), {
          slot: 'date',
          fill: null,
          stroke: 'accent',
          stroke_width: 4 * u,
          radius: pillH / 2,
        }),
        slotLine('date', box([cx - pillW / 2 + 40 * u, pillW - 80 * u], date), 40 * u, {
          font: 'heading',
          weight: 'bold',
          color: 'accent',
          upper: true,
          align: 'center',
        }),
        slotText('body', box([cx - textW * 0.45, textW * 0.9], body), {
          size: per(f, 32, 34, 38, 30) * u,
          font: 'body',
          color: 'text',
          align: 'center',
          line_height: 1.4,
          opacity: 0.85,
        }),
        slotText('handle', box(across, [bottom - footH, footH]), {
          size: 30 * u,
          font: 'body',
          color: 'text',
          align: 'center',
          valign: 'bottom',
          fit: 'ellipsis',
          opacity: 0.7,
        }),
      ];
    },
  },
  {
    name: 'launch-framed',
    title: 'New arrival: framed photo on an offset colour block',
    niche: 'launch',
    aspect: 'square',
    premium: false,
    tags: ['launch', 'new', 'product', 'photo', 'serif', 'elegant'],
    palette: {
      primary: '#1f3a2e',
      secondary: '#dccfb9',
      accent: '#c8553d',
      background: '#f3ede4',
      text: '#1f2a24',
    },
    fonts: { heading: 'Playfair Display', body: 'Inter' },
    layout: (f) => {
      const { safe, u } = f;
      const { right, bottom } = safeEnds(f);
      const off = 28 * u;
      const pic: Box = f.wide
        ? { x: safe.x, y: safe.y, w: f.width * 0.42, h: safe.h - off }
        : {
            x: safe.x,
            y: per(f, safe.y, safe.y, 150, 0),
            w: safe.w - off,
            h: per(f, 470, 620, 840, 0) * u,
          };
      const c: Box = f.wide
        ? { x: pic.x + pic.w + off + 64 * u, y: safe.y, w: 0, h: safe.h }
        : { x: safe.x, y: pic.y + pic.h + off + per(f, 40, 56, 64, 0) * u, w: safe.w, h: 0 };
      c.w = right - c.x;
      c.h = bottom - c.y;
      const btnH = per(f, 76, 88, 96, 84) * u;
      const [label, , head, , body, , btn] = split(c.y, c.h, [
        36 * u,
        per(f, 12, 16, 20, 16) * u,
        fr(1.4),
        per(f, 14, 20, 24, 20) * u,
        fr(1),
        per(f, 20, 32, 40, 32) * u,
        btnH,
      ]);
      const btnW = Math.min(c.w * 0.6, 380 * u);
      const chip = per(f, 100, 108, 120, 100) * u;
      const chipY = Math.max(pic.y + 24 * u, safe.y);
      return [
        rect(
          { x: pic.x + off, y: pic.y + off, w: pic.w, h: pic.h },
          { slot: 'photo', fill: 'accent' },
        ),
        ...photo(pic, 'secondary'),
        rect(
          { x: pic.x + 24 * u, y: chipY, w: chip, h: chip },
          { slot: 'logo', fill: 'background', radius: 16 * u },
        ),
        logo({ x: pic.x + 36 * u, y: chipY + 12 * u, w: chip - 24 * u, h: chip - 24 * u }),
        slotText('label', box([c.x, c.w], label), {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          valign: 'bottom',
          fit: 'ellipsis',
        }),
        slotText('headline', box([c.x, c.w], head), {
          size: per(f, 76, 88, 104, 72) * u,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.08,
        }),
        slotText('body', box([c.x, c.w], body), {
          size: per(f, 30, 34, 38, 30) * u,
          font: 'body',
          color: 'text',
          line_height: 1.4,
          opacity: 0.85,
        }),
        ...button('cta', box([c.x, btnW], btn), {
          fill: null,
          stroke: 'primary',
          strokeWidth: 3 * u,
          color: 'primary',
          size: 30 * u,
        }),
        slotLine('handle', box([c.x + btnW + 24 * u, c.w - btnW - 24 * u], btn), 28 * u, {
          font: 'body',
          color: 'text',
          align: 'right',
          opacity: 0.75,
        }),
      ];
    },
  },
];
