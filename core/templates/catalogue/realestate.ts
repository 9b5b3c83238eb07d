// Real estate templates: listings, open houses, sales, agents.
import type { Box, DraftLayer, Frame, Sample, TemplateSpec } from '../kit.ts';
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
  rampScrim,
  rect,
  safeEnds,
  slotText,
  split,
} from './parts.ts';

const ADDRESS: Sample = {
  short: '12 Maple Avenue',
  long: '1240 North Lakeshore Drive, Apartment 14B, Chicago, Illinois',
};
const BEDS: Sample = { short: '3 beds', long: '3 bedrooms plus a study' };
const BATHS: Sample = { short: '2 baths', long: '2 full and 1 half bathrooms' };
const AREA: Sample = { short: '1,850 sq ft', long: '1,850 square feet of living space' };
const HOME_PRICE: Sample = { short: '$485,000', long: '$1,249,000 or best offer' };

/**
 * Beds, baths and floor area side by side in `b`, each in its own column; a hairline between
 * columns goes with the column on its right.
 */
function facts(b: Box, f: Frame, o: { size: number; align?: 'left' | 'center' }) {
  const { u } = f;
  const w = b.w / 3;
  return (['beds', 'baths', 'area'] as const).flatMap((slot, i): DraftLayer[] => [
    ...(i > 0
      ? [
          line(
            { x: b.x + i * w, y: b.y + b.h * 0.15, w: 0, h: b.h * 0.7 },
            { slot, stroke: 'text', stroke_width: 2 * u, opacity: 0.25 },
          ),
        ]
      : []),
    slotText(
      slot,
      {
        x: b.x + i * w + (i > 0 || o.align === 'center' ? 20 * u : 0),
        y: b.y,
        w: w - (i > 0 || o.align === 'center' ? 40 * u : 20 * u),
        h: b.h,
      },
      {
        size: o.size,
        font: 'body',
        weight: 'bold',
        color: 'text',
        align: o.align ?? 'left',
        valign: 'middle',
        line_height: 1.15,
      },
    ),
  ]);
}

export const REALESTATE: TemplateSpec[] = [
  {
    name: 'realestate-just-listed',
    copy: { headline: 'address' },
    title: 'Just listed: photo, price, address and key facts',
    niche: 'realestate',
    aspect: 'square',
    premium: false,
    tags: ['real estate', 'listing', 'just listed', 'for sale', 'home', 'photo'],
    palette: {
      primary: '#0b3954',
      secondary: '#e8eef2',
      accent: '#f2a541',
      background: '#ffffff',
      text: '#0b2233',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: {
      label: { short: 'Just listed', long: 'Just listed in the Westside neighbourhood' },
      price: HOME_PRICE,
      address: ADDRESS,
      beds: BEDS,
      baths: BATHS,
      area: AREA,
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const pic: Box = f.wide
        ? { x: 0, y: 0, w: Math.round(f.width * 0.54), h: f.height }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.55, 0.56, 0.56, 0)) };
      const copy: Box = f.wide
        ? { x: pic.w + 56 * u, y: safe.y, w: end.right - pic.w - 56 * u, h: safe.h }
        : { x: safe.x, y: pic.h + 72 * u, w: safe.w, h: end.bottom - pic.h - 72 * u };
      const pSize = per(f, 76, 84, 96, 76) * u;
      // Landscape: the pill heads the copy, the group centred in its column.
      const [, pillRow, , price, , address, , rule, , stats] = split(copy.y, copy.h, [
        f.wide ? fr(1) : 0,
        f.wide ? 64 * u : 0,
        f.wide ? 40 * u : 0,
        pSize * 1.3,
        8 * u,
        per(f, 34, 36, 40, 34) * u * 1.3 * 2.1,
        per(f, 16, 28, 40, 20) * u,
        2 * u,
        per(f, 8, 16, 20, 8) * u,
        per(f, 96, 110, 120, 96) * u,
        f.wide ? fr(1) : 0,
      ]);
      const pill: Box = f.wide
        ? { x: copy.x, y: pillRow[0], w: Math.min(copy.w, 340 * u), h: 64 * u }
        : { x: safe.x, y: pic.h - 32 * u, w: 340 * u, h: 64 * u };
      return [
        ...photo(pic, 'secondary'),
        ...(f.wide
          ? [logo({ x: copy.x + copy.w - 96 * u, y: safe.y, w: 96 * u, h: 96 * u })]
          : [
              rect(
                { x: end.right - 112 * u, y: safe.y, w: 112 * u, h: 112 * u },
                { slot: 'logo', fill: '#ffffff', radius: 24 * u },
              ),
              logo({ x: end.right - 98 * u, y: safe.y + 14 * u, w: 84 * u, h: 84 * u }),
            ]),
        ...looseButton('label', pill, {
          fill: 'accent',
          color: 'primary',
          size: 28 * u,
          upper: true,
        }),
        slotText('price', box([copy.x, copy.w], price), {
          size: pSize,
          font: 'heading',
          weight: 'bold',
          color: 'primary',
          valign: 'bottom',
          line_height: 1.0,
        }),
        slotText('address', box([copy.x, copy.w], address), {
          size: per(f, 34, 36, 40, 34) * u,
          font: 'body',
          color: 'text',
          line_height: 1.3,
          opacity: 0.85,
        }),
        line(
          { x: copy.x, y: rule[0], w: copy.w, h: 0 },
          { slot: 'beds', stroke: 'secondary', stroke_width: 2 * u },
        ),
        ...facts(box([copy.x, copy.w], stats), f, { size: per(f, 32, 34, 38, 30) * u }),
      ];
    },
  },
  {
    name: 'realestate-open-house',
    copy: { headline: 'address' },
    title: 'Open house: photo, date band, address and agent',
    niche: 'realestate',
    aspect: 'story',
    premium: false,
    tags: ['real estate', 'open house', 'event', 'viewing', 'agent', 'photo'],
    palette: {
      primary: '#2d6a4f',
      secondary: '#d8f3dc',
      accent: '#2d6a4f',
      background: '#f7f5f0',
      text: '#1b2d24',
    },
    fonts: { heading: 'Oswald', body: 'Inter' },
    samples: {
      label: { short: 'Open house', long: 'Open house this weekend, everyone welcome' },
      date: { short: 'Sunday, June 15', long: 'Saturday, June 14 and Sunday, June 15' },
      time: { short: '1 to 4 PM', long: '1:00 PM to 4:00 PM, no appointment needed' },
      address: ADDRESS,
      author: { short: 'Maya Chen', long: 'Maya Chen-Richardson, Senior Partner' },
      role: { short: 'Listing agent', long: 'Listing agent, Westside Homes Realty' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const bandH = per(f, 120, 140, 170, 120) * u;
      let pic: Box;
      let band: Box;
      let copy: Box;
      if (f.wide) {
        pic = {
          x: Math.round(f.width * 0.5),
          y: 0,
          w: f.width - Math.round(f.width * 0.5),
          h: f.height,
        };
        band = { x: 0, y: safe.y, w: pic.x, h: bandH };
        copy = {
          x: safe.x,
          y: band.y + band.h + 40 * u,
          w: pic.x - safe.x - 56 * u,
          h: end.bottom - band.y - band.h - 40 * u,
        };
      } else {
        pic = { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.42, 0.46, 0.48, 0)) };
        band = { x: 0, y: pic.h, w: f.width, h: bandH };
        copy = {
          x: safe.x,
          y: band.y + band.h + 48 * u,
          w: safe.w,
          h: end.bottom - band.y - band.h - 48 * u,
        };
      }
      const [date, , time, , address, , agent, role] = split(copy.y, copy.h, [
        per(f, 76, 88, 104, 76) * u,
        10 * u,
        56 * u,
        per(f, 16, 24, 32, 16) * u,
        per(f, 32, 34, 38, 32) * u * 1.3 * 2.1,
        fr(1),
        48 * u,
        40 * u,
      ]);
      const logoS = 88 * u;
      return [
        ...photo(pic, 'secondary'),
        rect(band, { slot: 'label', fill: 'primary' }),
        slotText(
          'label',
          oneLineLoose(
            { x: safe.x, y: band.y, w: f.wide ? band.w - safe.x - 40 * u : safe.w, h: band.h },
            bandH * 0.62,
            1.0,
          ),
          {
            size: bandH * 0.62,
            font: 'heading',
            weight: 'bold',
            color: '#ffffff',
            on: 'primary',
            upper: true,
            valign: 'middle',
            line_height: 1.0,
          },
        ),
        slotText('date', box([copy.x, copy.w], date), {
          size: per(f, 64, 72, 84, 64) * u,
          font: 'heading',
          weight: 'bold',
          color: 'primary',
          upper: true,
          valign: 'bottom',
          line_height: 1.0,
        }),
        slotText('time', oneLineLoose(box([copy.x, copy.w], time), 38 * u, 1.2), {
          size: 38 * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          fit: 'ellipsis',
        }),
        slotText('address', box([copy.x, copy.w], address), {
          size: per(f, 32, 34, 38, 32) * u,
          font: 'body',
          color: 'text',
          line_height: 1.3,
        }),
        slotText(
          'author',
          oneLineLoose(box([copy.x, copy.w - logoS - 24 * u], agent), 36 * u, 1.2),
          {
            size: 36 * u,
            font: 'body',
            weight: 'bold',
            color: 'text',
            fit: 'ellipsis',
          },
        ),
        slotText('role', oneLineLoose(box([copy.x, copy.w - logoS - 24 * u], role), 30 * u, 1.2), {
          size: 30 * u,
          font: 'body',
          color: 'text',
          opacity: 0.8,
          fit: 'ellipsis',
        }),
        logo({
          x: copy.x + copy.w - logoS,
          y: agent[0] + agent[1] + role[1] - logoS,
          w: logoS,
          h: logoS,
        }),
      ];
    },
  },
  {
    name: 'realestate-luxury',
    title: 'Luxury listing: full-bleed photo, gold frame, serif type',
    niche: 'realestate',
    aspect: 'portrait',
    premium: true,
    tags: ['real estate', 'luxury', 'listing', 'elegant', 'property', 'photo'],
    palette: {
      primary: '#c9a45c',
      secondary: '#1c2b40',
      accent: '#c9a45c',
      background: '#0e1a2b',
      text: '#ffffff',
    },
    fonts: { heading: 'Playfair Display', body: 'Lora' },
    samples: {
      label: {
        short: 'Exclusive listing',
        long: 'Exclusive listing, private viewings by appointment',
      },
      headline: {
        short: 'The Lakeside Residence',
        long: 'The Lakeside Residence: five bedrooms on two acres of private shoreline',
      },
      price: { short: '$4,950,000', long: 'Offers over $4,950,000' },
      address: ADDRESS,
    },
    layout: (f) => {
      const { safe, u } = f;
      const inset = 32 * u;
      const copy: Box = f.wide
        ? { x: safe.x, y: safe.y, w: safe.w * 0.52, h: safe.h }
        : { x: safe.x, y: safe.y, w: safe.w, h: safe.h };
      const hSize = per(f, 64, 72, 84, 60) * u;
      const [logoRow, , label, , headline, , rule, , price, , address] = split(copy.y, copy.h, [
        96 * u,
        fr(1),
        44 * u,
        12 * u,
        hSize * 1.12 * 2.1,
        24 * u,
        2 * u,
        24 * u,
        64 * u,
        12 * u,
        per(f, 30, 32, 36, 30) * u * 1.3 * 2.1,
      ]);
      const mid = copy.x + copy.w / 2;
      const scrim = f.wide
        ? rampScrim(
            { x: 0, y: 0, w: copy.x + copy.w + 220 * u, h: f.height },
            'right',
            360 * u,
            0.8,
          )
        : rampScrim(
            { x: 0, y: label[0] - 360 * u, w: f.width, h: f.height - label[0] + 360 * u },
            'down',
            420 * u,
            0.82,
          );
      const common = {
        color: '#ffffff' as const,
        on: '#000000' as const,
        align: 'center' as const,
      };
      return [
        ...photo({ x: 0, y: 0, w: f.width, h: f.height }, 'secondary'),
        ...scrim,
        rect(
          { x: inset, y: inset, w: f.width - 2 * inset, h: f.height - 2 * inset },
          { fill: null, stroke: 'accent', stroke_width: 2 * u },
        ),
        ...logoTile({ x: mid - 48 * u, y: logoRow[0], w: 96 * u, h: 96 * u }, '#ffffff'),
        slotText('label', oneLineLoose(box([copy.x, copy.w], label), 28 * u), {
          ...common,
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          valign: 'bottom',
          fit: 'ellipsis',
        }),
        slotText('headline', box([copy.x, copy.w], headline), {
          ...common,
          size: hSize,
          font: 'heading',
          weight: 'bold',
          line_height: 1.12,
          valign: 'bottom',
        }),
        line(
          { x: mid - 48 * u, y: rule[0], w: 96 * u, h: 0 },
          { slot: 'price', stroke: 'accent', stroke_width: 2 * u },
        ),
        slotText('price', oneLineLoose(box([copy.x, copy.w], price), 52 * u, 1.0), {
          ...common,
          size: 52 * u,
          font: 'heading',
          color: 'accent',
          valign: 'middle',
          line_height: 1.0,
        }),
        slotText('address', box([copy.x, copy.w], address), {
          ...common,
          size: per(f, 30, 32, 36, 30) * u,
          font: 'body',
          line_height: 1.3,
        }),
      ];
    },
  },
  {
    name: 'realestate-agent-card',
    title: 'Meet your agent: portrait, contact details and button',
    niche: 'realestate',
    aspect: 'landscape',
    premium: false,
    tags: ['real estate', 'agent', 'realtor', 'contact', 'profile', 'photo'],
    palette: {
      primary: '#1e3a8a',
      secondary: '#ffffff',
      accent: '#f59e0b',
      background: '#eef3f8',
      text: '#0f172a',
    },
    fonts: { heading: 'Roboto', body: 'Roboto' },
    samples: {
      headline: {
        short: 'Your next home starts here',
        long: 'Buying or selling, I will be with you from the first viewing to the keys',
      },
      author: { short: 'Maya Chen', long: 'Maya Chen-Richardson' },
      role: { short: 'Realtor', long: 'Senior Partner, Westside Homes Realty' },
      phone: { short: '(312) 555-0147', long: '+1 (312) 555-0147 extension 12' },
      handle: { short: '@mayasells', long: 'maya.chen@westsidehomes.example' },
      cta: { short: 'Free valuation', long: 'Book a free home valuation today' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const hSize = per(f, 60, 68, 80, 60) * u;
      const contact = (c: Box): DraftLayer[] => {
        const [phone, , mail] = split(c.y, c.h, [fr(1), 8 * u, fr(1)]);
        return (
          [
            ['phone', phone],
            ['handle', mail],
          ] as const
        ).flatMap(([slot, [y, h]]) => [
          circleFromCorner(c.x, y + h / 2 - 8 * u, 16 * u, { slot, fill: 'accent' }),
          slotText(slot, oneLineLoose({ x: c.x + 36 * u, y, w: c.w - 36 * u, h }, 34 * u, 1.2), {
            size: 34 * u,
            font: 'body',
            color: 'text',
            valign: 'middle',
            fit: 'ellipsis',
          }),
        ]);
      };
      let pic: Box;
      let who: Box;
      let rest: Box;
      if (f.wide) {
        pic = { x: safe.x, y: safe.y, w: safe.h * 0.78, h: safe.h };
        const cx = pic.x + pic.w + 72 * u;
        who = { x: cx, y: safe.y, w: end.right - cx, h: 0 };
        rest = { x: cx, y: safe.y, w: end.right - cx, h: safe.h };
      } else {
        const pw = safe.w * per(f, 0.44, 0.48, 0.5, 0);
        pic = { x: safe.x, y: safe.y, w: pw, h: pw * per(f, 1.1, 1.25, 1.5, 1) };
        const cx = pic.x + pw + 48 * u;
        who = { x: cx, y: pic.y, w: end.right - cx, h: pic.h };
        rest = {
          x: safe.x,
          y: pic.y + pic.h + 56 * u,
          w: safe.w,
          h: end.bottom - pic.y - pic.h - 56 * u,
        };
      }
      // Tall: the name beside the portrait; wide: the name heads the column beside it.
      const nameBlock = (b: Box, bottom: boolean): DraftLayer[] => {
        const [, name, , role] = split(b.y, b.h, [
          bottom ? fr(1) : 0,
          60 * u * 1.1 * 2.05,
          8 * u,
          36 * u * 1.3 * 2.05,
        ]);
        return [
          slotText('author', box([b.x, b.w], name), {
            size: 60 * u,
            font: 'heading',
            weight: 'bold',
            color: 'primary',
            line_height: 1.1,
            valign: 'bottom',
          }),
          slotText('role', box([b.x, b.w], role), {
            size: 32 * u,
            font: 'body',
            color: 'text',
            line_height: 1.3,
            opacity: 0.8,
          }),
        ];
      };
      const whoH = 60 * u * 1.1 * 2.05 + 8 * u + 36 * u * 1.3 * 2.05;
      const [, names, , headline, , contacts, , cta] = split(rest.y, rest.h, [
        f.wide ? 96 * u : 0,
        f.wide ? whoH : 0,
        f.wide ? 20 * u : 0,
        f.wide ? fr(1) : hSize * 1.15 * 2.6,
        f.wide ? 20 * u : fr(1),
        per(f, 104, 112, 120, 100) * u,
        28 * u,
        88 * u,
      ]);
      const ctaW = Math.min(rest.w, 460 * u);
      return [
        rect(
          { ...pic, x: pic.x + 20 * u, y: pic.y + 20 * u },
          { slot: 'photo', fill: 'accent', radius: 28 * u },
        ),
        ...photo(pic, 'secondary'),
        logo(
          f.wide
            ? { x: rest.x + rest.w - 80 * u, y: safe.y, w: 80 * u, h: 80 * u }
            : { x: who.x + who.w - 88 * u, y: who.y, w: 88 * u, h: 88 * u },
        ),
        ...(f.wide
          ? nameBlock({ ...rest, y: names[0], h: names[1] }, false)
          : nameBlock(who, true)),
        slotText('headline', box([rest.x, rest.w], headline), {
          size: f.wide ? 48 * u : hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.15,
          valign: f.wide ? 'middle' : 'top',
        }),
        ...contact(box([rest.x, rest.w], contacts)),
        ...looseButton('cta', box([rest.x, ctaW], cta), {
          fill: 'primary',
          color: '#ffffff',
          size: 30 * u,
          radius: 14 * u,
        }),
      ];
    },
  },
  {
    name: 'realestate-sold-stamp',
    title: 'Sold: photo with a stamp, headline and address',
    niche: 'realestate',
    aspect: 'landscape',
    premium: false,
    tags: ['real estate', 'sold', 'success', 'closing', 'photo', 'bold'],
    palette: {
      primary: '#d62839',
      secondary: '#e9ecef',
      accent: '#d62839',
      background: '#ffffff',
      text: '#1d1d1d',
    },
    fonts: { heading: 'Bebas Neue', body: 'Inter' },
    samples: {
      label: { short: 'Sold', long: 'Sold in nine days' },
      headline: {
        short: 'Sold above asking',
        long: 'Sold above asking in nine days, with four offers on the table',
      },
      address: ADDRESS,
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      // The photo above the copy; on landscape, beside it.
      const pic: Box = f.wide
        ? { x: 0, y: 0, w: Math.round(f.width * 0.6), h: f.height }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.64, 0.66, 0.6, 0)) };
      const info: Box = f.wide
        ? { x: pic.w + 56 * u, y: safe.y, w: end.right - pic.w - 56 * u, h: safe.h }
        : { x: safe.x, y: pic.h + 40 * u, w: safe.w, h: end.bottom - pic.h - 40 * u };
      const logoS = 96 * u;
      const textW = f.wide ? info.w : info.w - logoS - 40 * u;
      const top = f.wide ? logoS + 40 * u : 0;
      const [headline, , address] = split(info.y + top, info.h - top - (f.wide ? 40 * u : 0), [
        fr(1),
        8 * u,
        per(f, 30, 32, 36, 34) * u * 1.3 * 2.05,
      ]);
      // The stamp: a turned frame with the label, in the photo's middle (kept in the safe area).
      const sw = Math.min(560 * u, (f.wide ? pic.w - 2 * safe.x : safe.w) * 0.8);
      const sh = sw * 0.38;
      const sy = Math.max(safe.y + 20 * u, Math.min(pic.h / 2 - sh / 2, pic.h - sh - 40 * u));
      const stamp: Box = { x: pic.x + pic.w / 2 - sw / 2, y: sy, w: sw, h: sh };
      return [
        ...photo(pic, 'secondary'),
        rect(stamp, {
          slot: 'label',
          fill: '#ffffffe6',
          stroke: 'accent',
          stroke_width: 10 * u,
          radius: 16 * u,
          rotation: -8,
        }),
        rect(
          { x: stamp.x + 18 * u, y: stamp.y + 18 * u, w: stamp.w - 36 * u, h: stamp.h - 36 * u },
          {
            slot: 'label',
            fill: null,
            stroke: 'accent',
            stroke_width: 3 * u,
            radius: 8 * u,
            rotation: -8,
          },
        ),
        slotText(
          'label',
          { x: stamp.x + 44 * u, y: stamp.y + 30 * u, w: stamp.w - 88 * u, h: stamp.h - 60 * u },
          {
            size: sh * 0.72,
            font: 'heading',
            weight: 'bold',
            color: 'accent',
            on: '#ffffff',
            align: 'center',
            valign: 'middle',
            line_height: 1.0,
            upper: true,
            rotation: -8,
          },
        ),
        slotText('headline', box([info.x, textW], headline), {
          size: per(f, 56, 64, 76, 60) * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          line_height: 1.15,
          valign: 'bottom',
        }),
        slotText('address', box([info.x, textW], address), {
          size: per(f, 30, 32, 36, 34) * u,
          font: 'body',
          color: 'text',
          line_height: 1.3,
          opacity: 0.8,
        }),
        logo(
          f.wide
            ? { x: info.x, y: info.y, w: logoS, h: logoS }
            : { x: info.x + info.w - logoS, y: info.y + info.h - logoS, w: logoS, h: logoS },
        ),
      ];
    },
  },
];
