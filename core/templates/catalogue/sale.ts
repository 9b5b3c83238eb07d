// Sale and promotion templates: a discount, a price, a code, a deadline.
import type { Box, DraftLayer, Sample, TemplateSpec } from '../kit.ts';
import {
  circle,
  cornerMask,
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

const SALE_SAMPLES: Record<string, Sample> = {
  label: { short: 'Summer sale', long: 'Our biggest summer sale of the year starts now' },
  headline: {
    short: 'Up to half off',
    long: 'Everything in store up to half off, from bestsellers to brand new arrivals',
  },
  cta: { short: 'Shop now', long: 'Shop the full collection online today' },
  date: { short: 'Ends Sunday', long: 'Friday, June 12 to Sunday, June 15' },
};

/** A coupon: a ticket with a notch cut into each end, the code in the middle. */
function coupon(
  b: Box,
  o: {
    fill: 'secondary' | 'background' | 'primary';
    cut: 'background' | 'secondary';
    color: 'accent' | 'background';
    size: number;
  },
): DraftLayer[] {
  const notch = b.h * 0.4;
  return [
    rect(b, { slot: 'code', fill: o.fill, radius: 10 }),
    circle(b.x, b.y + b.h / 2, notch, { slot: 'code', fill: o.cut }),
    circle(b.x + b.w, b.y + b.h / 2, notch, { slot: 'code', fill: o.cut }),
    slotText(
      'code',
      {
        x: b.x + notch,
        y: b.y + (b.h - lineH(o.size, 1.1)) / 2,
        w: b.w - 2 * notch,
        h: lineH(o.size, 1.1),
      },
      {
        size: o.size,
        min_size: o.size * 0.6,
        font: 'body',
        weight: 'bold',
        color: o.color,
        on: o.fill,
        align: 'center',
        line_height: 1.1,
        upper: true,
      },
    ),
  ];
}

export const SALE: TemplateSpec[] = [
  {
    name: 'sale-photo-badge',
    title: 'Sale photo with a discount badge',
    niche: 'sale',
    aspect: 'square',
    premium: false,
    tags: ['sale', 'discount', 'promotion', 'photo', 'badge', 'shop'],
    palette: {
      primary: '#dc2626',
      secondary: '#fed7aa',
      accent: '#dc2626',
      background: '#111827',
      text: '#ffffff',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: SALE_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const d = per(f, 280, 300, 340, 260) * u;
      const labelSize = 28 * t;
      const ctaH = per(f, 84, 92, 104, 92) * u;
      const logoH = per(f, 72, 80, 88, 80) * u;
      const badge = (cx: number, cy: number): DraftLayer[] => {
        const box = { x: cx - d * 0.33, y: cy - d * 0.3, w: d * 0.66, h: d * 0.6 };
        return [
          circle(cx, cy, d, { slot: 'discount', fill: 'accent' }),
          circle(cx, cy, d - 24 * u, {
            slot: 'discount',
            stroke: '#ffffff',
            stroke_width: 3 * u,
          }),
          slotText('discount', turned(box, cx, cy, -10), {
            size: d * 0.3,
            font: 'heading',
            weight: 'bold',
            color: '#ffffff',
            on: 'accent',
            align: 'center',
            valign: 'middle',
            line_height: 1,
          }),
        ];
      };
      if (f.wide) {
        const split = Math.round(f.width * 0.55);
        const x = split + d / 2 + 40 * u;
        const w = safeRight(f) - x;
        const ctaY = safeBottom(f) - ctaH;
        const headY = safe.y + lineH(labelSize) + 16 * u;
        return [
          ...photo({ x: 0, y: 0, w: split, h: f.height }, 'secondary'),
          logo({ x: safe.x, y: safe.y, w: 200 * u, h: logoH }),
          ...badge(split, safeBottom(f) - d / 2 - 8 * u),
          slotText(
            'label',
            { x, y: safe.y, w, h: lineH(labelSize) },
            {
              size: labelSize,
              font: 'body',
              weight: 'bold',
              color: 'secondary',
              upper: true,
              fit: 'ellipsis',
            },
          ),
          slotText(
            'headline',
            { x, y: headY, w, h: ctaY - 40 * u - headY },
            {
              size: 76 * t,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              line_height: 1.1,
            },
          ),
          ...snugButton(
            'cta',
            { x, y: ctaY, w: Math.min(w, 380 * t), h: ctaH },
            {
              fill: 'primary',
              color: '#ffffff',
              size: 30 * t,
              upper: true,
            },
          ),
        ];
      }
      const bandH = per(f, 400, 470, 1000, 0) * u;
      const band: Box = { x: 0, y: f.height - bandH, w: f.width, h: bandH };
      const top = band.y + per(f, 56, 64, 80, 0) * u;
      const ctaY = safeBottom(f) - ctaH;
      const headY = top + lineH(labelSize) + 12 * u;
      return [
        ...photo({ x: 0, y: 0, w: f.width, h: band.y }, 'secondary'),
        logo({ x: safe.x, y: safe.y, w: 200 * u, h: logoH }),
        ...badge(safeRight(f) - d / 2, safe.y + d / 2),
        slotText(
          'label',
          { x: safe.x, y: top, w: safe.w, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'secondary',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        slotText(
          'headline',
          { x: safe.x, y: headY, w: safe.w, h: ctaY - 36 * u - headY },
          {
            size: per(f, 80, 88, 110, 0) * u,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.1,
          },
        ),
        ...snugButton(
          'cta',
          { x: safe.x, y: ctaY, w: Math.min(safe.w, 400 * u), h: ctaH },
          {
            fill: 'primary',
            color: '#ffffff',
            size: per(f, 30, 32, 36, 0) * u,
            upper: true,
          },
        ),
      ];
    },
  },
  {
    name: 'sale-big-discount',
    title: 'Giant discount in bold type',
    niche: 'sale',
    aspect: 'story',
    premium: false,
    tags: ['sale', 'discount', 'promotion', 'typography', 'bold', 'coupon', 'code'],
    palette: {
      primary: '#111111',
      secondary: '#facc15',
      accent: '#111111',
      background: '#fde047',
      text: '#111111',
    },
    fonts: { heading: 'Bebas Neue', body: 'Inter' },
    samples: SALE_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const deg = -4;
      const tapeH = per(f, 110, 120, 140, 100) * u;
      const labelSize = per(f, 52, 56, 64, 44) * t;
      const tapeY = safe.y + per(f, 8, 24, 40, 0) * u;
      const tape: Box = { x: -100, y: tapeY, w: f.width + 200, h: tapeH };
      const tcx = f.width / 2;
      const tcy = tapeY + tapeH / 2;
      const logoH = per(f, 64, 72, 80, 72) * u;
      const dateSize = 32 * t;
      const codeH = per(f, 96, 104, 120, 96) * u;
      const codeW = Math.min(safe.w * 0.62, 520 * t);
      const footY = safeBottom(f) - codeH;
      const layers: DraftLayer[] = [
        // Black tape across the page carries the label.
        rect(turned(tape, tcx, tcy, deg), { slot: 'label', fill: 'primary' }),
        slotText(
          'label',
          turned(
            { x: safe.x, y: tcy - lineH(labelSize, 1) / 2, w: safe.w, h: lineH(labelSize, 1) },
            tcx,
            tcy,
            deg,
          ),
          {
            size: labelSize,
            font: 'heading',
            weight: 'bold',
            color: 'background',
            on: 'primary',
            align: 'center',
            upper: true,
            fit: 'ellipsis',
            line_height: 1,
          },
        ),
        ...coupon(
          { x: safe.x, y: footY, w: codeW, h: codeH },
          {
            fill: 'primary',
            cut: 'background',
            color: 'background',
            size: per(f, 34, 36, 40, 30) * t,
          },
        ),
        logo({
          x: safeRight(f) - 180 * u,
          y: safeBottom(f) - logoH - (codeH - logoH) / 2,
          w: 180 * u,
          h: logoH,
        }),
      ];
      const top = tapeY + tapeH + per(f, 40, 72, 110, 36) * u;
      const dateY = footY - 32 * u - lineH(dateSize);
      if (f.wide) {
        const colW = safe.w * 0.5;
        const x = safe.x + colW + 40 * u;
        const w = safeRight(f) - x;
        const size = Math.min(400, (dateY + lineH(dateSize) - top) / 1.25);
        return [
          ...layers,
          slotText(
            'discount',
            { x: safe.x, y: top, w: colW, h: dateY + lineH(dateSize) - top },
            {
              size,
              min_size: size * 0.3,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              line_height: 1,
              valign: 'middle',
            },
          ),
          slotText(
            'headline',
            { x, y: top, w, h: dateY - 20 * u - top },
            {
              size: 84 * t,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              line_height: 1.05,
              valign: 'bottom',
            },
          ),
          slotText(
            'date',
            { x, y: dateY, w, h: lineH(dateSize) },
            {
              size: dateSize,
              font: 'body',
              weight: 'bold',
              color: 'text',
              fit: 'ellipsis',
            },
          ),
        ];
      }
      const size = per(f, 320, 400, 400, 0) * u;
      const discH = lineH(size, 1);
      return [
        ...layers,
        slotText(
          'discount',
          { x: safe.x, y: top, w: safe.w, h: discH },
          {
            size,
            min_size: size * 0.3,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1,
            valign: 'middle',
          },
        ),
        slotText(
          'headline',
          { x: safe.x, y: top + discH + 8 * u, w: safe.w, h: dateY - 24 * u - top - discH - 8 * u },
          {
            size: per(f, 100, 130, 150, 0) * u,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.05,
          },
        ),
        slotText(
          'date',
          { x: safe.x, y: dateY, w: safe.w, h: lineH(dateSize) },
          {
            size: dateSize,
            font: 'body',
            weight: 'bold',
            color: 'text',
            fit: 'ellipsis',
          },
        ),
      ];
    },
  },
  {
    name: 'sale-product-price',
    title: 'Product on sale: photo, price and old price',
    niche: 'sale',
    aspect: 'portrait',
    premium: true,
    tags: ['sale', 'price', 'product', 'discount', 'photo', 'shop', 'elegant'],
    palette: {
      primary: '#1c1917',
      secondary: '#e7e5e4',
      accent: '#b45309',
      background: '#f5f5f4',
      text: '#1c1917',
    },
    fonts: { heading: 'Lora', body: 'Inter' },
    samples: {
      ...SALE_SAMPLES,
      headline: {
        short: 'Linen lounge chair',
        long: 'Handmade linen lounge chair with solid oak legs',
      },
      label: { short: 'Sale', long: 'End of season sale on all furniture' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const r = 36 * u;
      const labelSize = 26 * t;
      const priceSize = per(f, 110, 120, 140, 96) * t;
      const oldSize = priceSize * 0.42;
      const chipH = lineH(30 * t, 1.1) + 20 * u;
      const ctaH = per(f, 88, 96, 104, 88) * u;
      const logoH = per(f, 64, 72, 80, 72) * u;
      let pic: Box;
      let copy: Box;
      if (!f.has('photo')) {
        // Without a photo the logo and the discount head the page; the copy takes the rest.
        pic = { x: safe.x - 32 * u, y: safe.y - 32 * u, w: safe.w + 64 * u, h: 0 };
        const y = safe.y + Math.max(logoH, chipH) + 48 * u;
        copy = { x: safe.x, y, w: safe.w, h: safeBottom(f) - y };
      } else if (f.wide) {
        pic = { x: safe.x, y: safe.y, w: Math.round(f.width * 0.45), h: safe.h };
        const x = pic.x + pic.w + 56 * u;
        copy = { x, y: safe.y, w: safeRight(f) - x, h: safe.h };
      } else {
        const top = per(f, 72, 80, 150, 0) * u;
        pic = {
          x: safe.x,
          y: top,
          w: safe.w,
          h: Math.round(f.height * per(f, 0.42, 0.46, 0.42, 0)),
        };
        const y = pic.y + pic.h + per(f, 40, 48, 64, 0) * u;
        copy = { x: safe.x, y, w: safe.w, h: safeBottom(f) - y };
      }
      const ctaY = copy.y + copy.h - ctaH;
      const priceY = ctaY - per(f, 32, 40, 56, 28) * u - lineH(priceSize, 1);
      const headY = copy.y + lineH(labelSize) + 8 * u;
      const tagW = 200 * t;
      const tagH = lineH(oldSize, 1) + 24 * u;
      const tag: Box = {
        x: copy.x + copy.w - tagW,
        y: priceY + lineH(priceSize, 1) - tagH - priceSize * 0.1,
        w: tagW,
        h: tagH,
      };
      const chipW = 240 * t;
      const inTop = Math.max(pic.y + 32 * u, safe.y);
      return [
        ...photo(pic, 'secondary'),
        cornerMask(pic, r, 'background'),
        logo({ x: pic.x + 32 * u, y: inTop, w: 180 * u, h: logoH }),
        ...snugButton(
          'discount',
          { x: pic.x + pic.w - chipW - 32 * u, y: inTop, w: chipW, h: chipH },
          {
            fill: 'accent',
            color: '#ffffff',
            size: 30 * t,
            radius: 8 * u,
            pad: 16 * u,
          },
        ),
        slotText(
          'label',
          { x: copy.x, y: copy.y, w: copy.w, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'accent',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        slotText(
          'headline',
          { x: copy.x, y: headY, w: copy.w, h: priceY - 16 * u - headY },
          {
            size: per(f, 64, 72, 88, 52) * t * (f.has('photo') ? 1 : 1.4),
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.12,
          },
        ),
        slotText(
          'price',
          { x: copy.x, y: priceY, w: copy.w - tagW - 24 * u, h: lineH(priceSize, 1) },
          {
            size: priceSize,
            min_size: priceSize * 0.35,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1,
            valign: 'bottom',
          },
        ),
        // The old price on a tag, struck through.
        rect(tag, { slot: 'old_price', fill: 'secondary', radius: 8 * u }),
        slotText(
          'old_price',
          { x: tag.x + 16 * u, y: tag.y + 12 * u, w: tag.w - 32 * u, h: lineH(oldSize, 1) },
          {
            size: oldSize,
            min_size: oldSize * 0.5,
            font: 'body',
            color: '#57534e',
            on: 'secondary',
            align: 'center',
            valign: 'middle',
            line_height: 1,
          },
        ),
        insetRule(tag.x + 12 * u, tag.y + tag.h / 2, tag.w - 24 * u, {
          slot: 'old_price',
          stroke: 'accent',
          stroke_width: 4 * u,
        }),
        ...snugButton(
          'cta',
          { x: copy.x, y: ctaY, w: copy.w, h: ctaH },
          {
            fill: 'primary',
            color: '#ffffff',
            size: per(f, 30, 32, 36, 28) * t,
            radius: 8 * u,
            upper: true,
          },
        ),
      ];
    },
  },
  {
    name: 'sale-coupon-split',
    title: 'Discount code on a coupon beside a photo',
    niche: 'sale',
    aspect: 'landscape',
    premium: false,
    tags: ['sale', 'discount', 'coupon', 'code', 'promo', 'photo', 'dark'],
    palette: {
      primary: '#38bdf8',
      secondary: '#1e293b',
      accent: '#38bdf8',
      background: '#0f172a',
      text: '#f8fafc',
    },
    fonts: { heading: 'Oswald', body: 'Inter' },
    samples: SALE_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      let pic: Box;
      let copy: Box;
      if (!f.has('photo')) {
        // Without a photo the copy takes the page, the logo its top right corner.
        pic = { x: 0, y: 0, w: 0, h: 0 };
        copy = { ...safe };
      } else if (f.wide) {
        const split = Math.round(f.width * 0.52);
        pic = { x: split, y: 0, w: f.width - split, h: f.height };
        copy = { x: safe.x, y: safe.y, w: split - 56 * u - safe.x, h: safe.h };
      } else if (f.aspect === 'story') {
        const h = Math.round(f.height * 0.4);
        pic = { x: 0, y: f.height - h, w: f.width, h };
        copy = { x: safe.x, y: safe.y, w: safe.w, h: pic.y - 72 * u - safe.y };
      } else {
        const h = Math.round(f.height * per(f, 0.36, 0.4, 0, 0));
        pic = { x: 0, y: 0, w: f.width, h };
        copy = { x: safe.x, y: h + 48 * u, w: safe.w, h: safeBottom(f) - h - 48 * u };
      }
      const labelSize = 26 * t;
      const logoH = per(f, 56, 64, 72, 64) * u;
      const discSize = per(f, 150, 170, 200, 120) * t;
      const codeH = per(f, 92, 100, 116, 92) * u;
      const codeW = Math.min(copy.w, 520 * t);
      const dateSize = 26 * t;
      const dateY = copy.y + copy.h - lineH(dateSize);
      const codeY = dateY - 24 * u - codeH;
      const discY = codeY - 32 * u - lineH(discSize, 1);
      const headY =
        copy.y + (f.has('photo') ? lineH(labelSize) : Math.max(lineH(labelSize), logoH)) + 20 * u;
      return [
        ...photo(pic, 'secondary'),
        // A thin line of the accent colour where the photo meets the copy.
        rect(
          f.wide
            ? { x: pic.x, y: 0, w: 8 * u, h: f.height }
            : { x: 0, y: pic.y === 0 ? pic.h - 8 * u : pic.y, w: f.width, h: 8 * u },
          { slot: 'photo', fill: 'accent' },
        ),
        slotText(
          'label',
          { x: copy.x, y: copy.y, w: copy.w - (f.has('photo') ? 0 : 220 * u), h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'accent',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        // The logo sits on the photo, in its corner inside the safe area.
        logo({
          x: safeRight(f) - 180 * u,
          y:
            f.aspect === 'story' && f.has('photo')
              ? safeBottom(f) - logoH
              : Math.max(pic.y, safe.y) + (f.wide || !f.has('photo') ? 0 : 24 * u),
          w: 180 * u,
          h: logoH,
        }),
        slotText(
          'headline',
          { x: copy.x, y: headY, w: copy.w, h: discY - 8 * u - headY },
          {
            size: per(f, 76, 88, 104, 52) * t,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            upper: true,
            line_height: 1.08,
            valign: 'bottom',
          },
        ),
        slotText(
          'discount',
          { x: copy.x, y: discY, w: copy.w, h: lineH(discSize, 1) },
          {
            size: discSize,
            min_size: discSize * 0.35,
            font: 'heading',
            weight: 'bold',
            color: 'accent',
            line_height: 1,
            valign: 'bottom',
          },
        ),
        ...coupon(
          { x: copy.x, y: codeY, w: codeW, h: codeH },
          {
            fill: 'secondary',
            cut: 'background',
            color: 'accent',
            size: per(f, 34, 36, 40, 30) * t,
          },
        ),
        slotText(
          'date',
          { x: copy.x, y: dateY, w: copy.w, h: lineH(dateSize) },
          {
            size: dateSize,
            font: 'body',
            color: 'text',
            fit: 'ellipsis',
          },
        ),
      ];
    },
  },
  {
    name: 'sale-minimal-frame',
    title: 'Quiet sale announcement in a thin frame',
    niche: 'sale',
    aspect: 'landscape',
    premium: false,
    tags: ['sale', 'discount', 'minimal', 'elegant', 'serif', 'frame', 'code'],
    palette: {
      primary: '#7c2d12',
      secondary: '#e7d8c9',
      accent: '#9a3412',
      background: '#faf7f2',
      text: '#292524',
    },
    fonts: { heading: 'Playfair Display', body: 'Montserrat' },
    samples: {
      ...SALE_SAMPLES,
      headline: {
        short: 'The winter sale',
        long: 'The winter sale: a quiet week of our favourite pieces at their lowest prices',
      },
      label: { short: 'Members week', long: 'For the members of our newsletter, one week only' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const inset = per(f, 36, 40, 48, 28) * u;
      const labelSize = 24 * t;
      const dateSize = 26 * t;
      const logoH = per(f, 60, 64, 72, 60) * u;
      const codeH = per(f, 72, 80, 88, 72) * u;
      const codeW = Math.min(safe.w * 0.6, 420 * t);
      const discSize = per(f, 150, 170, 220, 120) * t;
      const logoY = safeBottom(f) - logoH;
      const codeY = logoY - per(f, 40, 56, 80, 24) * u - codeH;
      const dateY = codeY - 24 * u - lineH(dateSize);
      const discY = dateY - 16 * u - lineH(discSize, 1);
      const headY = safe.y + lineH(labelSize) + per(f, 28, 40, 56, 16) * u;
      const cx = f.width / 2;
      const centre = { align: 'center' as const };
      return [
        rect(
          { x: inset, y: inset, w: f.width - 2 * inset, h: f.height - 2 * inset },
          {
            stroke: 'secondary',
            stroke_width: 3 * u,
          },
        ),
        slotText(
          'label',
          { x: safe.x, y: safe.y, w: safe.w, h: lineH(labelSize) },
          {
            ...centre,
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'accent',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        slotText(
          'headline',
          { x: safe.x + safe.w * 0.06, y: headY, w: safe.w * 0.88, h: discY - 24 * u - headY },
          {
            ...centre,
            size: per(f, 84, 96, 120, 64) * t,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.12,
            valign: 'middle',
          },
        ),
        slotText(
          'discount',
          { x: safe.x, y: discY, w: safe.w, h: lineH(discSize, 1) },
          {
            ...centre,
            size: discSize,
            min_size: discSize * 0.35,
            font: 'heading',
            weight: 'bold',
            color: 'accent',
            line_height: 1,
            valign: 'bottom',
          },
        ),
        insetRule(cx - 40 * u, dateY - 8 * u, 80 * u, {
          slot: 'date',
          stroke: 'secondary',
          stroke_width: 3 * u,
        }),
        slotText(
          'date',
          { x: safe.x, y: dateY, w: safe.w, h: lineH(dateSize) },
          {
            ...centre,
            size: dateSize,
            font: 'body',
            color: 'text',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        rect(
          { x: cx - codeW / 2, y: codeY, w: codeW, h: codeH },
          {
            slot: 'code',
            stroke: 'text',
            stroke_width: 2 * u,
            radius: codeH / 2,
          },
        ),
        slotText(
          'code',
          {
            x: cx - codeW / 2 + 32 * u,
            y: codeY + (codeH - lineH(30 * t, 1.1)) / 2,
            w: codeW - 64 * u,
            h: lineH(30 * t, 1.1),
          },
          {
            ...centre,
            size: 30 * t,
            min_size: 18 * t,
            font: 'body',
            weight: 'bold',
            color: 'text',
            upper: true,
            line_height: 1.1,
          },
        ),
        logo({ x: cx - 90 * u, y: logoY, w: 180 * u, h: logoH }),
      ];
    },
  },
];
