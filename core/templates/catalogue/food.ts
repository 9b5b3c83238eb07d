// Food and restaurant templates: specials, menus, recipes, deals, openings.
import type { Box, DraftLayer, Frame, TemplateSpec } from '../kit.ts';
import {
  box,
  circleFromCorner,
  fr,
  line,
  logo,
  logoTile,
  looseButton,
  oneLineLoose,
  per,
  photo,
  rect,
  safeEnds,
  slotText,
  split,
  turned,
} from './parts.ts';

/** A white logo chip in the safe area's top left corner. */
const logoChip = (f: Frame, size = 104): DraftLayer[] =>
  logoTile({ x: f.safe.x, y: f.safe.y, w: size * f.u, h: size * f.u }, '#ffffff', 0.12);

/** A snapshot print: the photo on a white card, both turned `deg` degrees. */
function polaroid(card: Box, deg: number, u: number): DraftLayer[] {
  const side = 22 * u;
  const centre = { x: card.x + card.w / 2, y: card.y + card.h / 2 };
  const pic = turned(
    { x: card.x + side, y: card.y + side, w: card.w - 2 * side, h: card.h - side - 80 * u },
    centre.x,
    centre.y,
    deg,
  );
  return [
    rect(
      { ...card, x: card.x + 10 * u, y: card.y + 14 * u },
      { slot: 'photo', fill: '#00000026', radius: 6 * u, rotation: deg },
    ),
    rect(card, { slot: 'photo', fill: '#ffffff', radius: 6 * u, rotation: deg }),
    { kind: 'image', slot: 'photo', ...pic, rotation: deg },
  ];
}

export const FOOD: TemplateSpec[] = [
  {
    name: 'food-todays-special',
    title: "Today's special: dish photo with a menu card",
    niche: 'food',
    aspect: 'portrait',
    premium: true,
    tags: ['food', 'restaurant', 'special', 'menu', 'photo'],
    palette: {
      primary: '#3d2b1f',
      secondary: '#e9d8c4',
      accent: '#a8432e',
      background: '#fbf4ea',
      text: '#2d1f16',
    },
    fonts: { heading: 'Playfair Display', body: 'Inter', accent: 'Caveat' },
    samples: {
      label: { short: "Today's special", long: 'Only on Fridays, while it lasts' },
      headline: {
        short: 'Wild mushroom risotto',
        long: 'Slow-cooked wild mushroom risotto with aged parmesan and crispy sage',
      },
      body: {
        short: 'Creamy, earthy and finished with truffle oil.',
        long: 'Carnaroli rice stirred for twenty minutes with porcini stock, finished with aged parmesan, a little butter, crispy sage and a few drops of white truffle oil. Ask for a glass of our house white to go with it.',
      },
      cta: { short: 'Book a table', long: 'Book your table online or call us' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      let pic: Box;
      let card: Box;
      if (f.wide) {
        pic = { x: 0, y: 0, w: Math.round(f.width * 0.58), h: f.height };
        const cx = Math.round(f.width * 0.5);
        card = { x: cx, y: safe.y, w: end.right - cx + 16 * u, h: safe.h };
      } else {
        pic = { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.56, 0.6, 0.58, 0)) };
        const top = pic.h - per(f, 110, 130, 150, 0) * u;
        // The card is centred on the canvas; its copy keeps inside the safe area too.
        card = { x: 48 * u, y: top, w: f.width - 96 * u, h: end.bottom + 40 * u - top };
      }
      const pad = per(f, 48, 56, 60, 44) * u;
      const innerX = Math.max(card.x + pad, safe.x);
      const inner: Box = {
        x: innerX,
        y: card.y + pad * 0.8,
        w: Math.min(card.x + card.w - pad, end.right) - innerX,
        h: Math.min(card.y + card.h, end.bottom) - card.y - pad * 0.8 - (f.wide ? pad * 0.6 : 0),
      };
      const hSize = per(f, 60, 68, 80, 60) * u;
      const [label, , headline, , body, , row] = split(inner.y, inner.h, [
        72 * u,
        8 * u,
        hSize * 1.1 * 2.1,
        12 * u,
        fr(1),
        24 * u,
        88 * u,
      ]);
      const ctaW = Math.min(inner.w * 0.58, 380 * u);
      return [
        ...photo(pic, 'secondary'),
        ...logoChip(f),
        rect(card, { fill: 'background', radius: 36 * u }),
        slotText('label', oneLineLoose(box([inner.x, inner.w], label), 56 * u, 1.0), {
          size: 56 * u,
          font: 'accent',
          weight: 'bold',
          color: 'accent',
          fit: 'ellipsis',
          line_height: 1.0,
        }),
        slotText('headline', box([inner.x, inner.w], headline), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.1,
        }),
        slotText('body', box([inner.x, inner.w], body), {
          size: per(f, 30, 32, 36, 30) * u,
          font: 'body',
          color: 'text',
          line_height: 1.4,
          opacity: 0.85,
        }),
        slotText('price', box([inner.x, inner.w - ctaW - 24 * u], row), {
          size: 64 * u,
          font: 'heading',
          weight: 'bold',
          color: 'accent',
          valign: 'middle',
          line_height: 1.0,
        }),
        ...looseButton('cta', box([inner.x + inner.w - ctaW, ctaW], row), {
          fill: 'primary',
          color: '#ffffff',
          size: 30 * u,
        }),
      ];
    },
  },
  {
    name: 'food-menu-board',
    title: 'Menu board: three dishes and prices under a photo',
    niche: 'food',
    aspect: 'story',
    premium: false,
    tags: ['food', 'menu', 'restaurant', 'cafe', 'brunch', 'prices'],
    palette: {
      primary: '#e3a64a',
      secondary: '#2c3a33',
      accent: '#e3a64a',
      background: '#1c2420',
      text: '#f4ecdc',
    },
    fonts: { heading: 'Oswald', body: 'Lora', accent: 'Caveat' },
    samples: {
      headline: {
        short: 'Weekend brunch',
        long: 'The weekend brunch menu, served all day Saturday and Sunday',
      },
      time: { short: 'Served 9 to 1', long: 'Served from 9 AM until 1 PM every weekend' },
      item_1: { short: 'Shakshuka', long: 'Shakshuka with feta, chili oil and sourdough toast' },
      price_1: { short: '$14', long: '$14.50' },
      item_2: {
        short: 'Buttermilk pancakes',
        long: 'Buttermilk pancakes, berries, whipped ricotta and maple',
      },
      price_2: { short: '$12', long: '$12.50' },
      item_3: {
        short: 'Avocado toast',
        long: 'Avocado toast with pickled onion, radish and a poached egg',
      },
      price_3: { short: '$11', long: '$11.00' },
      place: { short: 'Harbour St 4', long: 'The Old Harbour Café, 4 Harbour Street' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const side = f.wide || f.aspect === 'square';
      const pic: Box = side
        ? { x: 0, y: 0, w: Math.round(f.width * 0.4), h: f.height }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0, 0.34, 0.36, 0)) };
      const copy: Box = side
        ? { x: pic.w + 56 * u, y: safe.y, w: end.right - pic.w - 56 * u, h: safe.h }
        : { x: safe.x, y: pic.h + 56 * u, w: safe.w, h: end.bottom - pic.h - 56 * u };
      const hSize = per(f, 72, 80, 96, 72) * u;
      const [time, , headline, , rule, , items, , footer] = split(copy.y, copy.h, [
        60 * u,
        8 * u,
        hSize * 1.05 * 1.9,
        24 * u,
        3 * u,
        16 * u,
        fr(1),
        24 * u,
        56 * u,
      ]);
      const rows = split(items[0], items[1], [fr(1), fr(1), fr(1)]);
      const priceW = Math.min(copy.w * 0.24, 180 * u);
      const menu = rows.flatMap(([y, h], i): DraftLayer[] => {
        const item = `item_${i + 1}`;
        const price = `price_${i + 1}`;
        return [
          slotText(
            item,
            { x: copy.x, y: y + 10 * u, w: copy.w - priceW - 24 * u, h: h - 20 * u },
            {
              size: per(f, 38, 40, 46, 38) * u,
              font: 'body',
              color: 'text',
              line_height: 1.2,
              valign: 'middle',
            },
          ),
          slotText(
            price,
            oneLineLoose({ x: copy.x + copy.w - priceW, y, w: priceW, h }, 44 * u, 1.0),
            {
              size: 44 * u,
              font: 'heading',
              weight: 'bold',
              color: 'accent',
              align: 'right',
              valign: 'middle',
              line_height: 1.0,
            },
          ),
          ...(i < 2
            ? [
                line(
                  { x: copy.x, y: y + h, w: copy.w, h: 0 },
                  { slot: item, stroke: 'text', stroke_width: 2 * u, opacity: 0.2 },
                ),
              ]
            : []),
        ];
      });
      return [
        ...photo(pic, 'secondary'),
        slotText('time', oneLineLoose(box([copy.x, copy.w], time), 44 * u, 1.0), {
          size: 44 * u,
          font: 'accent',
          weight: 'bold',
          color: 'accent',
          fit: 'ellipsis',
          line_height: 1.0,
        }),
        slotText('headline', box([copy.x, copy.w], headline), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.05,
          upper: true,
        }),
        line(
          { x: copy.x, y: rule[0], w: 96 * u, h: 0 },
          { slot: 'headline', stroke: 'accent', stroke_width: 5 * u },
        ),
        ...menu,
        slotText('place', oneLineLoose(box([copy.x, copy.w - 96 * u], footer), 30 * u), {
          size: 30 * u,
          font: 'body',
          color: 'text',
          valign: 'middle',
          fit: 'ellipsis',
          opacity: 0.85,
        }),
        rect(
          { x: copy.x + copy.w - 72 * u, y: footer[0] - 8 * u, w: 72 * u, h: 72 * u },
          { slot: 'logo', fill: 'text', radius: 16 * u },
        ),
        logo({ x: copy.x + copy.w - 64 * u, y: footer[0], w: 56 * u, h: 56 * u }),
      ];
    },
  },
  {
    name: 'food-recipe-card',
    title: 'Recipe card: photo, cooking time and servings',
    niche: 'food',
    aspect: 'square',
    premium: false,
    tags: ['food', 'recipe', 'cooking', 'blog', 'photo'],
    palette: {
      primary: '#2f5d50',
      secondary: '#f2e3d5',
      accent: '#c4553a',
      background: '#fff8ef',
      text: '#2b2b2b',
    },
    fonts: { heading: 'Lora', body: 'Inter', accent: 'Caveat' },
    samples: {
      label: { short: 'Recipe', long: 'Recipe of the week from our kitchen' },
      headline: {
        short: 'Lemon orzo soup',
        long: 'Lemon and chicken orzo soup with dill and a swirl of yoghurt',
      },
      time: { short: '25 min', long: '25 minutes, plus resting' },
      servings: { short: 'Serves 4', long: 'Serves 4 to 6 people' },
      body: {
        short: 'One pot, bright and cosy.',
        long: 'Everything happens in one pot: soften the onion and garlic, add stock and orzo, then shredded chicken. Finish with lemon, dill and a spoon of yoghurt. Keeps for three days in the fridge.',
      },
      cta: { short: 'Full recipe in bio', long: 'Get the full recipe at the link in our bio' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const pic: Box = f.wide
        ? { x: 0, y: 0, w: Math.round(f.width * 0.5), h: f.height }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.44, 0.46, 0.44, 0)) };
      const copy: Box = f.wide
        ? { x: pic.w + 56 * u, y: safe.y, w: end.right - pic.w - 56 * u, h: safe.h }
        : { x: safe.x, y: pic.h + 44 * u, w: safe.w, h: end.bottom - pic.h - 44 * u };
      const hSize = per(f, 56, 64, 76, 56) * u;
      const [label, , headline, , chips, , body, , footer] = split(copy.y, copy.h, [
        64 * u,
        4 * u,
        hSize * 1.12 * 2.1,
        20 * u,
        64 * u,
        24 * u,
        fr(1),
        24 * u,
        56 * u,
      ]);
      const chipW = Math.min((copy.w - 20 * u) / 2, 280 * u);
      const chip = (slot: string, x: number): DraftLayer[] => [
        rect(
          { x, y: chips[0], w: chipW, h: chips[1] },
          { slot, fill: 'secondary', radius: chips[1] / 2 },
        ),
        slotText(
          slot,
          oneLineLoose({ x: x + 20 * u, y: chips[0], w: chipW - 40 * u, h: chips[1] }, 28 * u),
          {
            size: 28 * u,
            font: 'body',
            weight: 'bold',
            color: 'primary',
            on: 'secondary',
            align: 'center',
            valign: 'middle',
            fit: 'ellipsis',
          },
        ),
      ];
      return [
        ...photo(pic, 'secondary'),
        slotText('label', oneLineLoose(box([copy.x, copy.w], label), 48 * u, 1.0), {
          size: 48 * u,
          font: 'accent',
          weight: 'bold',
          color: 'accent',
          fit: 'ellipsis',
          line_height: 1.0,
        }),
        slotText('headline', box([copy.x, copy.w], headline), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.12,
        }),
        ...chip('time', copy.x),
        ...chip('servings', copy.x + chipW + 20 * u),
        slotText('body', box([copy.x, copy.w], body), {
          size: per(f, 30, 32, 36, 30) * u,
          font: 'body',
          color: 'text',
          line_height: 1.4,
        }),
        slotText('cta', oneLineLoose(box([copy.x, copy.w - 96 * u], footer), 30 * u), {
          size: 30 * u,
          font: 'body',
          weight: 'bold',
          color: 'primary',
          valign: 'middle',
          fit: 'ellipsis',
        }),
        logo({ x: copy.x + copy.w - 56 * u, y: footer[0], w: 56 * u, h: 56 * u }),
      ];
    },
  },
  {
    name: 'food-delivery-deal',
    title: 'Delivery deal: big discount and a snapshot photo',
    niche: 'food',
    aspect: 'landscape',
    premium: false,
    tags: ['food', 'delivery', 'discount', 'deal', 'takeaway', 'playful'],
    palette: {
      primary: '#c81d25',
      secondary: '#ffffff',
      accent: '#c81d25',
      background: '#ffc93c',
      text: '#2b1d14',
    },
    fonts: { heading: 'Bebas Neue', body: 'Montserrat' },
    samples: {
      label: { short: 'Free delivery', long: 'Free delivery on every order this week' },
      discount: { short: '30% off', long: '30% off your first three orders' },
      headline: {
        short: 'Pizza night, sorted',
        long: 'Wood-fired pizza at your door in thirty minutes or less',
      },
      cta: { short: 'Order now', long: 'Order in the app or on our website' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      let card: Box;
      let copy: Box;
      if (f.wide) {
        const cw = safe.h * 0.86;
        card = { x: end.right - cw - 24 * u, y: safe.y + 8 * u, w: cw, h: cw * 1.12 };
        copy = { x: safe.x, y: safe.y, w: card.x - safe.x - 64 * u, h: safe.h };
      } else {
        const cw = per(f, 420, 500, 620, 0) * u;
        const top = per(f, f.height / 2 - cw * 0.56, safe.y + 10, 190, 0);
        card = { x: f.width - safe.x - cw, y: top, w: cw, h: cw * 1.12 };
        copy =
          f.aspect === 'square'
            ? { x: safe.x, y: safe.y, w: card.x - safe.x - 80 * u, h: safe.h }
            : {
                x: safe.x,
                y: top + cw * 1.12 + 64 * u,
                w: safe.w,
                h: end.bottom - top - cw * 1.12 - 64 * u,
              };
      }
      const dSize = per(f, 200, 240, 280, 220) * u;
      const ring = card.w * 1.3;
      const [logoRow, , label, , discount, , headline, , cta] = split(copy.y, copy.h, [
        f.tall ? 0 : 88 * u,
        fr(1),
        44 * u,
        4 * u,
        dSize * 1.0 * (f.aspect === 'square' ? 2.05 : 1.05),
        12 * u,
        per(f, 44, 48, 56, 44) * u * 1.2 * 2.1,
        32 * u,
        88 * u,
      ]);
      const ctaW = Math.min(copy.w, 380 * u);
      return [
        circleFromCorner(card.x + card.w / 2 - ring / 2, card.y + card.h / 2 - ring / 2, ring, {
          fill: 'accent',
          opacity: 0.9,
        }),
        ...polaroid(card, 4, u),
        logo(
          f.tall
            ? { x: safe.x, y: safe.y, w: 96 * u, h: 96 * u }
            : { x: copy.x, y: logoRow[0], w: 88 * u, h: 88 * u },
        ),
        slotText('label', oneLineLoose(box([copy.x, copy.w], label), 32 * u), {
          size: 32 * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          upper: true,
          valign: 'bottom',
          fit: 'ellipsis',
        }),
        slotText('discount', box([copy.x, copy.w], discount), {
          size: dSize,
          font: 'heading',
          weight: 'bold',
          color: 'accent',
          line_height: 1.0,
          valign: 'bottom',
          upper: true,
        }),
        slotText('headline', box([copy.x, copy.w], headline), {
          size: per(f, 44, 48, 56, 44) * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          line_height: 1.2,
        }),
        ...looseButton('cta', box([copy.x, ctaW], cta), {
          fill: 'primary',
          color: '#ffffff',
          size: 32 * u,
        }),
      ];
    },
  },
  {
    name: 'food-grand-opening',
    title: 'Restaurant opening: framed photo, date and address',
    niche: 'food',
    aspect: 'square',
    premium: false,
    tags: ['food', 'restaurant', 'opening', 'event', 'elegant', 'minimal'],
    palette: {
      primary: '#1f3a2e',
      secondary: '#e4dccb',
      accent: '#9a6b3f',
      background: '#f3efe6',
      text: '#1f2a24',
    },
    fonts: { heading: 'Playfair Display', body: 'Lora', accent: 'Caveat' },
    samples: {
      label: { short: 'You are invited', long: 'Join us for our very first dinner service' },
      headline: {
        short: 'Grand opening',
        long: 'Our second restaurant opens its doors on the harbour',
      },
      date: { short: 'Friday, June 12', long: 'Friday, June 12 and all weekend' },
      time: { short: 'From 6 PM', long: 'From 6 PM until late' },
      place: { short: '4 Harbour Street', long: 'The Old Customs House, 4 Harbour Street, Lisbon' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const inset = 16 * u;
      const framed = (b: Box): DraftLayer[] => [
        rect(
          { x: b.x - inset, y: b.y - inset, w: b.w + 2 * inset, h: b.h + 2 * inset },
          { slot: 'photo', fill: null, stroke: 'accent', stroke_width: 2 * u },
        ),
        ...photo(b, 'secondary'),
      ];
      const copy: Box = f.wide ? { ...safe, w: safe.w * 0.5 } : safe;
      const hSize = per(f, 64, 76, 92, 64) * u;
      const [logoRow, , label, , headline, , pic, , when, , place] = split(copy.y, copy.h, [
        80 * u,
        f.wide ? fr(1) : per(f, 16, 32, 40, 0) * u,
        68 * u,
        4 * u,
        hSize * 1.1 * 2.05,
        f.wide ? 28 * u : per(f, 28, 48, 64, 0) * u + inset,
        f.wide ? 0 : fr(1),
        f.wide ? 0 : per(f, 28, 48, 64, 0) * u + inset,
        44 * u,
        8 * u,
        40 * u,
        f.wide ? fr(1) : 0,
      ]);
      const mid = copy.x + copy.w / 2;
      const picBox: Box = f.wide
        ? {
            x: safe.x + safe.w * 0.56,
            y: safe.y + inset,
            w: safe.w * 0.44 - inset,
            h: safe.h - 2 * inset,
          }
        : { x: safe.x + inset, y: pic[0], w: safe.w - 2 * inset, h: pic[1] };
      return [
        ...framed(picBox),
        logo({ x: mid - 40 * u, y: logoRow[0], w: 80 * u, h: 80 * u }),
        slotText('label', oneLineLoose(box([copy.x, copy.w], label), 52 * u, 1.0), {
          size: 52 * u,
          font: 'accent',
          weight: 'bold',
          color: 'accent',
          align: 'center',
          fit: 'ellipsis',
          line_height: 1.0,
        }),
        slotText('headline', box([copy.x, copy.w], headline), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          align: 'center',
          valign: f.wide ? 'middle' : 'top',
          line_height: 1.1,
        }),
        slotText(
          'date',
          oneLineLoose({ x: copy.x, y: when[0], w: copy.w / 2 - 28 * u, h: when[1] }, 32 * u),
          {
            size: 32 * u,
            font: 'body',
            weight: 'bold',
            color: 'text',
            align: 'right',
            valign: 'middle',
            fit: 'ellipsis',
          },
        ),
        circleFromCorner(mid - 6 * u, when[0] + when[1] / 2 - 6 * u, 12 * u, {
          slot: 'time',
          fill: 'accent',
        }),
        slotText(
          'time',
          oneLineLoose({ x: mid + 28 * u, y: when[0], w: copy.w / 2 - 28 * u, h: when[1] }, 32 * u),
          {
            size: 32 * u,
            font: 'body',
            weight: 'bold',
            color: 'text',
            valign: 'middle',
            fit: 'ellipsis',
          },
        ),
        slotText('place', oneLineLoose(box([copy.x, copy.w], place), 30 * u), {
          size: 30 * u,
          font: 'body',
          color: 'text',
          align: 'center',
          valign: 'middle',
          fit: 'ellipsis',
          opacity: 0.85,
        }),
      ];
    },
  },
];
