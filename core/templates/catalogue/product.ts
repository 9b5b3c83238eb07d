// Product templates: a product's photo with its name, price and a way to buy it.
import type { Box, DraftLayer, TemplateSpec } from '../kit.ts';
import {
  box,
  circleFromCorner,
  fr,
  line,
  logo,
  looseButton,
  oneLineLoose,
  per,
  photo,
  rampScrim,
  rect,
  safeEnds,
  slotText,
  split,
} from './parts.ts';

export const PRODUCT: TemplateSpec[] = [
  {
    name: 'product-showcase',
    title: 'Product showcase: framed photo with a price disc',
    niche: 'product',
    aspect: 'portrait',
    premium: false,
    tags: ['product', 'shop', 'ecommerce', 'price', 'photo'],
    palette: {
      primary: '#2b2a28',
      secondary: '#e6dac9',
      accent: '#a8432e',
      background: '#f5efe7',
      text: '#2b2a28',
    },
    fonts: { heading: 'Playfair Display', body: 'Inter' },
    samples: {
      headline: {
        short: 'The Linen Tote',
        long: 'The everyday linen tote, hand-stitched in small batches',
      },
      label: { short: 'New in', long: 'New in the summer collection' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const d = 190 * u;
      // The photo: a card inside the margins (bled on landscape, copy beside it).
      const pic: Box = f.wide
        ? { x: 0, y: 0, w: Math.round(f.width * 0.48), h: f.height }
        : {
            x: safe.x,
            y: per(f, safe.y, safe.y, 150, 0),
            w: safe.w,
            h: per(f, 420, 640, 780, 0),
          };
      const copy: Box = f.wide
        ? { x: pic.w + 72 * u, y: safe.y, w: end.right - pic.w - 72 * u, h: safe.h }
        : {
            x: safe.x,
            y: pic.y + pic.h + 52 * u,
            w: safe.w,
            h: end.bottom - pic.y - pic.h - 52 * u,
          };
      // The price disc hangs off the photo's lower right corner (its right edge on landscape).
      const dx = f.wide ? pic.w - d - 40 * u : pic.x + pic.w - d - 40 * u;
      const dy = f.wide ? end.bottom - d : pic.y + pic.h - d * 0.62;
      const hSize = per(f, 72, 84, 92, 76) * u;
      const [label, , headline, , body, , cta] = split(copy.y, copy.h, [
        44 * u,
        per(f, 16, 20, 28, 20) * u,
        hSize * 1.08 * (f.aspect === 'square' ? 1.9 : 2.2),
        20 * u,
        fr(1),
        32 * u,
        88 * u,
      ]);
      const ctaW = Math.min(copy.w * 0.55, 400 * u);
      const chip = 112 * u;
      const chipY = Math.max(pic.y + 28 * u, safe.y);
      const chipX = f.wide ? safe.x : pic.x + 28 * u;
      return [
        // A sand block behind the top of the page: the card sits half on it.
        f.wide
          ? rect({ x: 0, y: 0, w: pic.w * 0.5, h: f.height }, { fill: 'secondary' })
          : rect({ x: 0, y: 0, w: f.width, h: pic.y + pic.h * 0.62 }, { fill: 'secondary' }),
        ...photo(pic, 'secondary'),
        rect(
          { x: chipX, y: chipY, w: chip, h: chip },
          { slot: 'logo', fill: '#ffffff', radius: 24 * u },
        ),
        logo({ x: chipX + 14 * u, y: chipY + 14 * u, w: chip - 28 * u, h: chip - 28 * u }),
        circleFromCorner(dx, dy, d, { slot: 'price', fill: 'accent' }),
        slotText(
          'price',
          { x: dx + 22 * u, y: dy + d * 0.25, w: d - 44 * u, h: d * 0.5 },
          {
            size: 60 * u,
            font: 'heading',
            weight: 'bold',
            color: '#ffffff',
            on: 'accent',
            align: 'center',
            valign: 'middle',
            line_height: 1.0,
          },
        ),
        slotText('label', box([copy.x, f.wide ? copy.w : copy.w - d - 80 * u], label), {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          valign: 'bottom',
          fit: 'ellipsis',
        }),
        slotText('headline', box([copy.x, copy.w], headline), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.08,
        }),
        slotText('body', box([copy.x, copy.w], body), {
          size: per(f, 32, 34, 38, 32) * u,
          font: 'body',
          color: 'text',
          line_height: 1.4,
          opacity: 0.85,
        }),
        ...looseButton('cta', box([copy.x, ctaW], cta), {
          fill: 'primary',
          color: '#ffffff',
          size: 32 * u,
        }),
        slotText(
          'handle',
          oneLineLoose(box([copy.x + ctaW + 32 * u, copy.w - ctaW - 32 * u], cta), 30 * u),
          {
            size: 30 * u,
            font: 'body',
            color: 'text',
            align: 'right',
            valign: 'middle',
            fit: 'ellipsis',
          },
        ),
      ];
    },
  },
  {
    name: 'product-split-panel',
    title: 'Product split: photo beside a deep colour panel',
    niche: 'product',
    aspect: 'landscape',
    premium: false,
    tags: ['product', 'shop', 'split', 'price', 'photo'],
    palette: {
      primary: '#1f4d3a',
      secondary: '#2e6b52',
      accent: '#e9b949',
      background: '#1f4d3a',
      text: '#f7f3ea',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: {
      headline: {
        short: 'Cold brew kit',
        long: 'The cold brew kit: smooth coffee at home in twelve easy hours',
      },
      cta: { short: 'Shop now', long: 'Shop the full collection online today' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const pic: Box = f.wide
        ? {
            x: Math.round(f.width * 0.5),
            y: 0,
            w: f.width - Math.round(f.width * 0.5),
            h: f.height,
          }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.44, 0.48, 0.5, 0)) };
      const copy: Box = f.wide
        ? { x: safe.x, y: safe.y, w: pic.x - safe.x - 64 * u, h: safe.h }
        : {
            x: safe.x,
            y: pic.h + 56 * u,
            w: safe.w,
            h: end.bottom - pic.h - 56 * u,
          };
      const hSize = per(f, 64, 72, 84, 72) * u;
      const [top, , headline, , body, , row] = split(copy.y, copy.h, [
        80 * u,
        28 * u,
        hSize * 1.1 * 2.15,
        20 * u,
        fr(1),
        32 * u,
        96 * u,
      ]);
      const priceW = copy.w * 0.32;
      const oldW = copy.w * 0.18;
      const ctaW = Math.min(copy.w - priceW - oldW - 40 * u, 400 * u);
      return [
        ...photo(pic, 'secondary'),
        line(
          { x: copy.x, y: top[0] + top[1] / 2, w: 48 * u, h: 0 },
          { slot: 'label', stroke: 'accent', stroke_width: 6 * u },
        ),
        slotText(
          'label',
          oneLineLoose(box([copy.x + 68 * u, copy.w - 68 * u - 100 * u], top), 28 * u),
          {
            size: 28 * u,
            font: 'body',
            weight: 'bold',
            color: 'accent',
            upper: true,
            valign: 'middle',
            fit: 'ellipsis',
          },
        ),
        logo({ x: copy.x + copy.w - 80 * u, y: top[0], w: 80 * u, h: 80 * u }),
        slotText('headline', box([copy.x, copy.w], headline), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.1,
        }),
        slotText('body', box([copy.x, copy.w], body), {
          size: per(f, 30, 32, 36, 32) * u,
          font: 'body',
          color: 'text',
          line_height: 1.4,
          opacity: 0.85,
        }),
        slotText('price', box([copy.x, priceW], row), {
          size: 64 * u,
          font: 'heading',
          weight: 'bold',
          color: 'accent',
          valign: 'middle',
          line_height: 1.0,
        }),
        slotText('old_price', oneLineLoose(box([copy.x + priceW + 24 * u, oldW], row), 34 * u), {
          size: 34 * u,
          font: 'body',
          color: 'text',
          opacity: 0.7,
          valign: 'middle',
          line_height: 1.0,
        }),
        ...looseButton(
          'cta',
          { x: copy.x + copy.w - ctaW, y: row[0] + 4 * u, w: ctaW, h: row[1] - 8 * u },
          {
            fill: 'accent',
            color: 'primary',
            size: 30 * u,
          },
        ),
      ];
    },
  },
  {
    name: 'product-new-arrival',
    title: 'New arrival: full-bleed photo with bold type',
    niche: 'product',
    aspect: 'story',
    premium: true,
    tags: ['product', 'new arrival', 'fashion', 'photo', 'bold'],
    palette: {
      primary: '#ffffff',
      secondary: '#2a2a2a',
      accent: '#ff5a36',
      background: '#141414',
      text: '#ffffff',
    },
    fonts: { heading: 'Bebas Neue', body: 'Inter' },
    samples: {
      headline: { short: 'The new drop', long: 'The autumn drop: twelve new pieces made to last' },
      label: { short: 'Just in', long: 'Limited edition, only while stocks last' },
      cta: { short: 'Shop now', long: 'Shop the new collection today' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const copy: Box = f.wide
        ? { x: safe.x, y: safe.y, w: f.width * 0.5, h: safe.h }
        : {
            x: safe.x,
            y: per(f, 400, 560, 900, 0),
            w: safe.w,
            h: end.bottom - per(f, 400, 560, 900, 0),
          };
      // Wide: the scrim darkens the left, fading out to the right; else the bottom, from above.
      const scrim = f.wide
        ? rampScrim({ x: 0, y: 0, w: copy.x + copy.w + 200 * u, h: f.height }, 'right', 320 * u)
        : rampScrim(
            { x: 0, y: copy.y - 260 * u, w: f.width, h: f.height - copy.y + 260 * u },
            'down',
            420 * u,
          );
      const bodyS = per(f, 32, 34, 38, 32) * u;
      const [headline, , body, , row] = split(
        copy.y + (f.wide ? 110 * u : 0),
        copy.h - (f.wide ? 110 * u : 0),
        [fr(1), 24 * u, bodyS * 1.4 * 3 + 8 * u, 40 * u, 100 * u],
      );
      const pill = { x: safe.x + safe.w - 300 * u, y: safe.y + 12 * u, w: 300 * u, h: 64 * u };
      const ctaW = Math.min(copy.w * 0.5, 380 * u);
      return [
        ...photo({ x: 0, y: 0, w: f.width, h: f.height }, 'secondary'),
        ...scrim,
        logo({ x: safe.x, y: safe.y, w: 88 * u, h: 88 * u }),
        ...looseButton('label', pill, {
          fill: 'accent',
          color: 'background',
          size: 28 * u,
          upper: true,
        }),
        slotText('headline', box([copy.x, copy.w], headline), {
          size: per(f, 150, 170, 200, 150) * u,
          font: 'heading',
          weight: 'bold',
          color: '#ffffff',
          on: '#000000',
          line_height: 1.0,
          valign: 'bottom',
          upper: true,
        }),
        slotText('body', box([copy.x, f.wide ? copy.w : copy.w * 0.9], body), {
          size: bodyS,
          font: 'body',
          color: '#ffffff',
          on: '#000000',
          line_height: 1.4,
        }),
        slotText('price', box([copy.x, copy.w - ctaW - 32 * u], row), {
          size: 88 * u,
          font: 'heading',
          weight: 'bold',
          color: 'accent',
          on: '#000000',
          valign: 'middle',
          line_height: 1.0,
        }),
        ...looseButton(
          'cta',
          { x: copy.x + copy.w - ctaW, y: row[0] + 6 * u, w: ctaW, h: row[1] - 12 * u },
          {
            fill: 'primary',
            color: 'background',
            size: 32 * u,
          },
        ),
      ];
    },
  },
  {
    name: 'product-feature-list',
    title: 'Product card with three features, price and button',
    niche: 'product',
    aspect: 'square',
    premium: false,
    tags: ['product', 'features', 'card', 'list', 'tech'],
    palette: {
      primary: '#2f45e0',
      secondary: '#ffffff',
      accent: '#2f45e0',
      background: '#e8ecff',
      text: '#141833',
    },
    fonts: { heading: 'Roboto', body: 'Roboto' },
    samples: {
      headline: {
        short: 'Meet Pulse 2',
        long: 'Meet Pulse 2, the smart watch that keeps up with your week',
      },
      label: { short: 'New', long: 'Available from today in three colours' },
      feature_1: {
        short: 'Water resistant',
        long: 'Water resistant to fifty metres, in salt and fresh water',
      },
      feature_2: {
        short: 'Seven-day battery',
        long: 'A battery that lasts a full week on a single charge',
      },
      feature_3: {
        short: 'Two-year warranty',
        long: 'Two-year warranty and free repairs at any of our stores',
      },
      cta: { short: 'Buy now', long: 'Order yours today with free shipping' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const card = safe;
      const pad = per(f, 56, 60, 60, 48) * u;
      const inner: Box = {
        x: card.x + pad,
        y: card.y + pad,
        w: card.w - 2 * pad,
        h: card.h - 2 * pad,
      };
      const hSize = per(f, 64, 72, 84, 64) * u;
      const fSize = per(f, 34, 36, 40, 34) * u;
      // Landscape: title and price on the left, the features on the right.
      const left = f.wide ? { ...inner, w: inner.w * 0.48 } : inner;
      const [top, , headline, , rest] = split(left.y, left.h, [
        64 * u,
        36 * u,
        hSize * 1.1 * 2.1,
        per(f, 32, 48, 64, 24) * u,
        fr(1),
      ]);
      const list: Box = f.wide
        ? { x: inner.x + inner.w * 0.55, y: inner.y, w: inner.w * 0.45, h: inner.h }
        : { x: inner.x, y: rest[0], w: inner.w, h: rest[1] - 96 * u - 40 * u };
      const rowY = f.wide ? inner.y + inner.h - 96 * u : inner.y + inner.h - 96 * u;
      const rows = split(list.y, list.h, [fr(1), 16 * u, fr(1), 16 * u, fr(1)]);
      const dot = 36 * u;
      const features = [0, 2, 4].flatMap((i, n) => {
        const r = rows[i as 0 | 2 | 4];
        const slot = `feature_${n + 1}`;
        return [
          circleFromCorner(list.x, r[0] + fSize * 0.7 - dot / 2, dot, { slot, fill: 'accent' }),
          circleFromCorner(list.x + dot * 0.3, r[0] + fSize * 0.7 - dot * 0.2, dot * 0.4, {
            slot,
            fill: '#ffffff',
          }),
          slotText(
            slot,
            { x: list.x + dot + 24 * u, y: r[0], w: list.w - dot - 24 * u, h: r[1] },
            {
              size: fSize,
              font: 'body',
              color: 'text',
              on: 'secondary',
              line_height: 1.25,
            },
          ),
        ];
      });
      const ctaW = Math.min(left.w * 0.48, 340 * u);
      return [
        rect(
          { ...card, x: card.x + 20 * u, y: card.y + 20 * u },
          { fill: 'accent', radius: 40 * u },
        ),
        rect(card, { fill: 'secondary', radius: 40 * u }),
        ...looseButton(
          'label',
          { ...box([inner.x, Math.min(260 * u, left.w - 120 * u)], top) },
          {
            fill: 'accent',
            color: '#ffffff',
            size: 26 * u,
            upper: true,
          },
        ),
        logo({ x: left.x + left.w - 88 * u, y: top[0] - 12 * u, w: 88 * u, h: 88 * u }),
        slotText('headline', box([left.x, left.w], headline), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          on: 'secondary',
          line_height: 1.1,
        }),
        ...features,
        slotText(
          'price',
          { x: left.x, y: rowY, w: left.w - ctaW - 24 * u, h: 96 * u },
          {
            size: 72 * u,
            font: 'heading',
            weight: 'bold',
            color: 'accent',
            on: 'secondary',
            valign: 'middle',
            line_height: 1.0,
          },
        ),
        ...looseButton(
          'cta',
          { x: left.x + left.w - ctaW, y: rowY + 6 * u, w: ctaW, h: 84 * u },
          {
            fill: 'primary',
            color: '#ffffff',
            size: 30 * u,
          },
        ),
      ];
    },
  },
  {
    name: 'product-promo-code',
    title: 'Promo code: big discount, code ticket and button',
    niche: 'product',
    aspect: 'portrait',
    premium: false,
    tags: ['product', 'discount', 'promo code', 'coupon', 'sale', 'typography'],
    palette: {
      primary: '#1d1a39',
      secondary: '#ffffff',
      accent: '#ff3d7f',
      background: '#ffe1e8',
      text: '#1d1a39',
    },
    fonts: { heading: 'Oswald', body: 'Inter' },
    samples: {
      headline: {
        short: 'On every order',
        long: 'On everything in the shop, bundles and gift cards included',
      },
      label: { short: 'This weekend', long: 'Members only, this weekend and next' },
      cta: { short: 'Shop the sale', long: 'Use it at checkout on our website' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const big = Math.min(f.width, f.height);
      const dSize = per(f, 230, 280, 340, 250) * u;
      // A solid circle in the top right corner, a ring in the bottom left: both clear of copy.
      const decor = [
        circleFromCorner(f.width - big * 0.27, -big * 0.2, big * 0.46, {
          fill: 'accent',
          opacity: 0.9,
        }),
        circleFromCorner(
          f.wide ? f.width - big * 0.3 : -big * 0.22,
          f.height - big * 0.3,
          big * 0.5,
          {
            fill: null,
            stroke: 'accent',
            stroke_width: 14 * u,
            opacity: 0.6,
          },
        ),
      ];
      const ticket = (b: Box): DraftLayer[] => [
        rect(b, {
          slot: 'code',
          fill: 'secondary',
          stroke: 'primary',
          stroke_width: 4 * u,
          radius: 20 * u,
        }),
        // The whole code always shows: it shrinks rather than ending in an ellipsis.
        slotText(
          'code',
          oneLineLoose({ x: b.x + 28 * u, y: b.y, w: b.w - 56 * u, h: b.h }, 48 * u),
          {
            size: 48 * u,
            min_size: 18 * u,
            font: 'heading',
            weight: 'bold',
            color: 'primary',
            on: 'secondary',
            align: 'center',
            valign: 'middle',
          },
        ),
      ];
      if (f.wide) {
        const lw = safe.w * 0.46;
        const rx = safe.x + lw + 56 * u;
        const rw = Math.min(end.right - rx, 520 * u);
        const [, label, , headline, , code, , cta] = split(safe.y, safe.h, [
          fr(1),
          48 * u,
          16 * u,
          140 * u,
          32 * u,
          110 * u,
          28 * u,
          88 * u,
          fr(1),
        ]);
        return [
          ...decor,
          logo({ x: safe.x, y: safe.y, w: 88 * u, h: 88 * u }),
          slotText(
            'discount',
            { x: safe.x, y: safe.y + 100 * u, w: lw, h: safe.h - 170 * u },
            {
              size: dSize,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              line_height: 1.0,
              valign: 'middle',
            },
          ),
          slotText('label', box([rx, rw], label), {
            size: 30 * u,
            font: 'body',
            weight: 'bold',
            color: 'text',
            upper: true,
            valign: 'bottom',
            fit: 'ellipsis',
          }),
          slotText('headline', box([rx, rw], headline), {
            size: 52 * u,
            font: 'heading',
            color: 'text',
            line_height: 1.1,
          }),
          ...ticket(box([rx, Math.min(rw, 420 * u)], code)),
          ...looseButton('cta', box([rx, Math.min(rw, 420 * u)], cta), {
            fill: 'primary',
            color: '#ffffff',
            size: 30 * u,
          }),
          slotText(
            'handle',
            { x: safe.x, y: end.bottom - 48 * u, w: lw, h: 48 * u },
            {
              size: 30 * u,
              font: 'body',
              color: 'text',
              valign: 'bottom',
              fit: 'ellipsis',
            },
          ),
        ];
      }
      const [logoRow, , label, , discount, , headline, , code, , cta, , handle] = split(
        safe.y,
        safe.h,
        [
          96 * u,
          per(f, 24, 40, 56, 0) * u,
          48 * u,
          8 * u,
          dSize * 1.0 * 1.55,
          per(f, 8, 16, 24, 0) * u,
          fr(1),
          per(f, 24, 36, 48, 0) * u,
          110 * u,
          per(f, 24, 32, 40, 0) * u,
          88 * u,
          per(f, 16, 32, 40, 0) * u,
          44 * u,
        ],
      );
      const cx = (w: number) => f.width / 2 - w / 2;
      const tw = Math.min(safe.w, 520 * u);
      // The label stays clear of the corner circle: a centred box no wider than the gap.
      const lw = Math.min(safe.w, 2 * (f.width - big * 0.27 - f.width / 2) - 40 * u);
      return [
        ...decor,
        logo({ x: cx(96 * u), y: logoRow[0], w: 96 * u, h: 96 * u }),
        slotText('label', box([cx(lw), lw], label), {
          size: 32 * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          upper: true,
          align: 'center',
          valign: 'bottom',
          fit: 'ellipsis',
        }),
        slotText('discount', box([safe.x, safe.w], discount), {
          size: dSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          align: 'center',
          valign: 'middle',
          line_height: 1.0,
        }),
        slotText('headline', box([safe.x + 40 * u, safe.w - 80 * u], headline), {
          size: per(f, 48, 56, 64, 48) * u,
          font: 'heading',
          color: 'text',
          align: 'center',
          valign: 'middle',
          line_height: 1.1,
        }),
        ...ticket(box([cx(tw), tw], code)),
        ...looseButton('cta', box([cx(tw), tw], cta), {
          fill: 'primary',
          color: '#ffffff',
          size: 32 * u,
        }),
        slotText('handle', box([safe.x, safe.w], handle), {
          size: 30 * u,
          font: 'body',
          color: 'text',
          align: 'center',
          valign: 'bottom',
          fit: 'ellipsis',
        }),
      ];
    },
  },
];
