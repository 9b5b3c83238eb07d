// Event templates: posters, tickets and invitations with a date, a time and a place.
import type { Box, Sample, TemplateSpec } from '../kit.ts';
import {
  box,
  button,
  circle,
  fr,
  hrule,
  linesH,
  logo,
  oneLine,
  per,
  photo,
  rect,
  safeEnds,
  slotLine,
  slotText,
  split,
  vrule,
} from './parts.ts';

/** Copy that reads as an event where the shared samples would not. */
const EVENT_SAMPLES: Record<string, Sample> = {
  headline: {
    short: 'Summer Night Market',
    long: 'The Summer Night Market: street food, live music and local makers by the river',
  },
  label: { short: 'Free entry', long: 'Free entry for members, tickets at the door for guests' },
  cta: { short: 'Get tickets', long: 'Reserve your free ticket on our website today' },
};

export const EVENT: TemplateSpec[] = [
  {
    name: 'event-poster',
    title: 'Event poster: photo, headline and a date badge',
    niche: 'event',
    aspect: 'story',
    premium: true,
    tags: ['event', 'poster', 'concert', 'festival', 'date', 'photo', 'dark'],
    palette: {
      primary: '#e11d48',
      secondary: '#2a2446',
      accent: '#e11d48',
      background: '#16122a',
      text: '#ffffff',
    },
    fonts: { heading: 'Bebas Neue', body: 'Montserrat' },
    samples: EVENT_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const { right, bottom } = safeEnds(f);
      const d = per(f, 230, 250, 290, 210) * u;
      const pic: Box = f.wide
        ? { x: 0, y: 0, w: Math.round(f.width * 0.5), h: f.height }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.48, 0.46, 0.4, 0)) };
      // The date badge: on the photo's lower edge (its lower right corner on landscape).
      const cx = f.wide ? pic.w - d / 2 - 36 * u : right - d / 2;
      const cy = f.wide ? bottom - d / 2 : pic.h - d * 0.2;
      const c: Box = f.wide
        ? { x: pic.w + 56 * u, y: safe.y, w: right - pic.w - 56 * u, h: safe.h }
        : { x: safe.x, y: pic.h + per(f, 36, 48, 64, 0) * u, w: safe.w, h: 0 };
      if (!f.wide) c.h = bottom - c.y;
      const btnH = per(f, 88, 96, 108, 84) * u;
      const rowH = per(f, 48, 52, 60, 44) * u;
      const [label, , head, , row, , btn] = split(c.y, c.h, [
        44 * u,
        per(f, 12, 16, 20, 16) * u,
        fr(1),
        per(f, 20, 24, 32, 20) * u,
        rowH,
        per(f, 28, 40, 48, 36) * u,
        btnH,
      ]);
      const labelW = f.wide ? c.w : cx - d / 2 - 24 * u - c.x;
      const timeW = c.w * (f.wide ? 0.36 : 0.3);
      const detail = per(f, 32, 34, 38, 32) * u;
      const inner = d * 0.72;
      return [
        ...photo(pic, 'secondary'),
        rect(
          { x: safe.x, y: safe.y, w: 112 * u, h: 112 * u },
          { slot: 'logo', fill: '#ffffff', radius: 24 * u },
        ),
        logo({ x: safe.x + 14 * u, y: safe.y + 14 * u, w: 84 * u, h: 84 * u }),
        circle(cx, cy, d + 20 * u, { slot: 'date', fill: 'background' }),
        circle(cx, cy, d, { slot: 'date', fill: 'accent' }),
        slotText(
          'date',
          { x: cx - inner / 2, y: cy - d * 0.3, w: inner, h: d * 0.6 },
          {
            size: per(f, 64, 68, 80, 60) * u,
            font: 'heading',
            weight: 'bold',
            color: '#ffffff',
            on: 'accent',
            upper: true,
            align: 'center',
            valign: 'middle',
            line_height: 1.0,
          },
        ),
        slotText('label', box([c.x, labelW], label), {
          size: 30 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          valign: 'middle',
          fit: 'ellipsis',
        }),
        slotText('headline', box([c.x, c.w], head), {
          size: per(f, 130, 150, 190, 140) * u,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 0.98,
          valign: 'top',
        }),
        slotText('time', oneLine(box([c.x, timeW], row), detail), {
          size: detail,
          font: 'body',
          weight: 'bold',
          color: 'text',
          valign: 'middle',
          fit: 'ellipsis',
        }),
        vrule(c.x + timeW + 16 * u, row[0] + 6 * u, row[1] - 12 * u, {
          slot: 'place',
          stroke: 'accent',
          stroke_width: 4 * u,
        }),
        slotText('place', oneLine(box([c.x + timeW + 44 * u, c.w - timeW - 44 * u], row), detail), {
          size: detail,
          font: 'body',
          color: 'text',
          valign: 'middle',
          fit: 'ellipsis',
          opacity: 0.9,
        }),
        ...button('cta', box([c.x, Math.min(c.w, per(f, 440, 460, 520, 420) * u)], btn), {
          fill: 'primary',
          color: '#ffffff',
          size: per(f, 32, 34, 38, 32) * u,
          upper: true,
        }),
      ];
    },
  },
  {
    name: 'event-ticket',
    title: 'Event ticket: perforated card with a tear-off date stub',
    niche: 'event',
    aspect: 'landscape',
    premium: false,
    tags: ['event', 'ticket', 'admission', 'card', 'date', 'playful'],
    palette: {
      primary: '#2d1e2f',
      secondary: '#fffaf0',
      accent: '#c74120',
      background: '#ffcf56',
      text: '#2d1e2f',
    },
    fonts: { heading: 'Oswald', body: 'Roboto' },
    samples: EVENT_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const { right, bottom } = safeEnds(f);
      // The card: the safe area, centred and taller on a story (its copy stays inside).
      const card: Box =
        f.aspect === 'story'
          ? { x: safe.x, y: 180 * u, w: f.width - 2 * safe.x, h: 1480 * u }
          : safe;
      const pad = per(f, 48, 52, 56, 40) * u;
      const notch = per(f, 64, 68, 76, 56) * u;
      // The stub: on the right on landscape, along the bottom on the other aspects.
      const stubShare = per(f, 0.3, 0.3, 0.28, 0.32);
      const main: Box = f.wide
        ? { ...card, w: card.w * (1 - stubShare) }
        : { ...card, h: card.h * (1 - stubShare) };
      const stub: Box = f.wide
        ? { x: main.x + main.w, y: card.y, w: card.w - main.w, h: card.h }
        : { x: card.x, y: main.y + main.h, w: card.w, h: card.h - main.h };
      /** A part of the card inset by the padding, and kept inside the safe area. */
      const inside = (b: Box): Box => {
        const x = Math.max(b.x + pad, safe.x);
        const y = Math.max(b.y + pad, safe.y);
        return {
          x,
          y,
          w: Math.min(b.x + b.w - pad, right) - x,
          h: Math.min(b.y + b.h - pad, bottom) - y,
        };
      };
      const inMain = inside(main);
      const inStub = inside(stub);
      // The perforation: notches at both ends, a row of dots between.
      const dot = 10 * u;
      const span = f.wide ? card.h : card.w;
      const n = Math.floor((span - 2 * notch) / (dot * 2.6));
      const dots = Array.from({ length: n }, (_, i) => {
        const at = notch + ((span - 2 * notch) * (i + 0.5)) / n;
        return f.wide
          ? circle(stub.x, card.y + at, dot, { fill: 'background' })
          : circle(card.x + at, stub.y, dot, { fill: 'background' });
      });
      const notches = f.wide
        ? [
            circle(stub.x, card.y, notch, { fill: 'background' }),
            circle(stub.x, card.y + card.h, notch, { fill: 'background' }),
          ]
        : [
            circle(card.x, stub.y, notch, { fill: 'background' }),
            circle(card.x + card.w, stub.y, notch, { fill: 'background' }),
          ];
      const radius = 28 * u;
      // The stub's square edge along the perforation (its outer corners stay round).
      const stubEdge: Box = f.wide
        ? { x: stub.x, y: stub.y, w: radius, h: stub.h }
        : { x: stub.x, y: stub.y, w: stub.w, h: radius };
      const lg = per(f, 88, 96, 112, 72) * u;
      const hSize = per(f, 116, 136, 156, 120) * u;
      const [lgRow, , label, , head, , place] = split(inMain.y, inMain.h, [
        lg,
        per(f, 32, 40, 56, 20) * u,
        44 * u,
        16 * u,
        fr(1),
        20 * u,
        44 * u,
      ]);
      const btnH = per(f, 80, 88, 100, 76) * u;
      const dateSize = per(f, 84, 96, 120, 72) * u;
      const stubParts = f.wide
        ? (() => {
            const [date, , time, , btn] = split(inStub.y, inStub.h, [
              fr(1),
              16 * u,
              44 * u,
              fr(0.4),
              btnH,
            ]);
            return {
              date: box([inStub.x, inStub.w], date),
              time: box([inStub.x, inStub.w], time),
              btn: box([inStub.x, inStub.w], btn),
            };
          })()
        : (() => {
            const dateW = inStub.w * 0.56;
            const [date, , time] = split(inStub.y, inStub.h, [fr(1), 12 * u, 44 * u]);
            const btnW = inStub.w - dateW - 32 * u;
            return {
              date: box([inStub.x, dateW], date),
              time: box([inStub.x, dateW], time),
              btn: {
                x: inStub.x + dateW + 32 * u,
                y: inStub.y + inStub.h - btnH,
                w: btnW,
                h: btnH,
              },
            };
          })();
      return [
        rect(card, { fill: 'secondary', radius }),
        rect(stub, { fill: 'primary', radius }),
        rect(stubEdge, { fill: 'primary' }),
        ...notches,
        ...dots,
        logo({ x: inMain.x, y: lgRow[0], w: lg, h: lgRow[1] }),
        slotText('label', box([inMain.x, inMain.w], label), {
          size: 30 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          on: 'secondary',
          upper: true,
          valign: 'bottom',
          fit: 'ellipsis',
        }),
        slotText('headline', box([inMain.x, inMain.w], head), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          on: 'secondary',
          upper: true,
          line_height: 1.02,
        }),
        slotText('place', box([inMain.x, inMain.w], place), {
          size: 32 * u,
          font: 'body',
          color: 'text',
          on: 'secondary',
          valign: 'bottom',
          fit: 'ellipsis',
        }),
        slotText('date', stubParts.date, {
          size: dateSize,
          font: 'heading',
          weight: 'bold',
          color: 'background',
          on: 'primary',
          upper: true,
          line_height: 1.0,
          valign: 'bottom',
        }),
        slotText('time', stubParts.time, {
          size: 32 * u,
          font: 'body',
          weight: 'bold',
          color: 'secondary',
          on: 'primary',
          valign: 'middle',
          fit: 'ellipsis',
        }),
        ...button('cta', stubParts.btn, {
          fill: 'background',
          color: 'primary',
          size: per(f, 30, 32, 34, 30) * u,
          radius: 16 * u,
          upper: true,
        }),
      ];
    },
  },
  {
    name: 'event-calendar',
    title: 'Event with a calendar tile over the photo',
    niche: 'event',
    aspect: 'square',
    premium: false,
    tags: ['event', 'calendar', 'save the date', 'webinar', 'meetup', 'photo', 'light'],
    palette: {
      primary: '#2563eb',
      secondary: '#dbeafe',
      accent: '#f97316',
      background: '#ffffff',
      text: '#0f172a',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: EVENT_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const { right, bottom } = safeEnds(f);
      const tw = per(f, 230, 250, 290, 190) * u;
      const th = tw * 1.1;
      const pic: Box = f.wide
        ? { x: Math.round(f.width * 0.5), y: 0, w: Math.round(f.width * 0.5), h: f.height }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.5, 0.5, 0.48, 0)) };
      const tile: Box = f.wide
        ? { x: pic.x - tw / 2, y: bottom - th, w: tw, h: th }
        : { x: safe.x, y: pic.h - th * 0.45, w: tw, h: th };
      const strip = th * 0.26;
      const c: Box = f.wide
        ? { x: safe.x, y: safe.y, w: tile.x - 48 * u - safe.x, h: safe.h }
        : { x: tile.x + tw + 44 * u, y: pic.h + 36 * u, w: 0, h: 0 };
      if (!f.wide) {
        c.w = right - c.x;
        c.h = bottom - c.y;
      }
      const btnH = per(f, 80, 88, 100, 76) * u;
      const detail = per(f, 32, 34, 38, 30) * u;
      const [label, , head, , time, , place, , btn] = split(c.y, c.h, [
        40 * u,
        per(f, 10, 14, 18, 12) * u,
        fr(1),
        per(f, 16, 24, 32, 16) * u,
        linesH(1, detail),
        8 * u,
        linesH(1, detail),
        per(f, 24, 36, 48, 28) * u,
        btnH,
      ]);
      const chip = per(f, 104, 112, 124, 96) * u;
      const shadow = 10 * u;
      const ring = 20 * u;
      return [
        ...photo(pic, 'secondary'),
        // The logo: on a white chip in the photo's top right corner.
        rect(
          { x: right - chip, y: safe.y, w: chip, h: chip },
          { slot: 'logo', fill: '#ffffff', radius: 22 * u },
        ),
        logo({ x: right - chip + 14 * u, y: safe.y + 14 * u, w: chip - 28 * u, h: chip - 28 * u }),
        // The calendar tile: an orange sheet with binder rings, the date on its white page.
        rect(
          { x: tile.x + shadow, y: tile.y + shadow, w: tw, h: th },
          { slot: 'date', fill: '#0f172a', radius: 26 * u, opacity: 0.12 },
        ),
        rect(tile, { slot: 'date', fill: 'accent', radius: 26 * u }),
        rect(
          { x: tile.x + 8 * u, y: tile.y + strip, w: tw - 16 * u, h: th - strip - 8 * u },
          { slot: 'date', fill: '#ffffff', radius: 20 * u },
        ),
        circle(tile.x + tw * 0.3, tile.y + strip * 0.5, ring, { slot: 'date', fill: '#ffffff' }),
        circle(tile.x + tw * 0.7, tile.y + strip * 0.5, ring, { slot: 'date', fill: '#ffffff' }),
        slotText(
          'date',
          {
            x: tile.x + 24 * u,
            y: tile.y + strip + 16 * u,
            w: tw - 48 * u,
            h: th - strip - 40 * u,
          },
          {
            size: per(f, 64, 70, 80, 56) * u,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            on: '#ffffff',
            align: 'center',
            valign: 'middle',
            line_height: 1.05,
          },
        ),
        slotText('label', box([c.x, c.w], label), {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'primary',
          upper: true,
          valign: 'middle',
          fit: 'ellipsis',
        }),
        slotText('headline', box([c.x, c.w], head), {
          size: per(f, 72, 84, 104, 88) * u,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.1,
        }),
        slotText('time', box([c.x, c.w], time), {
          size: detail,
          font: 'body',
          weight: 'bold',
          color: 'text',
          valign: 'middle',
          fit: 'ellipsis',
        }),
        slotText('place', box([c.x, c.w], place), {
          size: detail,
          font: 'body',
          color: 'text',
          valign: 'middle',
          fit: 'ellipsis',
          opacity: 0.85,
        }),
        ...button('cta', box([c.x, Math.min(c.w, per(f, 380, 420, 480, 380) * u)], btn), {
          fill: 'primary',
          color: '#ffffff',
          size: per(f, 30, 32, 36, 30) * u,
        }),
      ];
    },
  },
  {
    name: 'event-split',
    title: 'Event split: details column beside a tall photo',
    niche: 'event',
    aspect: 'portrait',
    premium: false,
    tags: ['event', 'split', 'workshop', 'dinner', 'details', 'photo', 'serif'],
    palette: {
      primary: '#f2b134',
      secondary: '#1d5253',
      accent: '#f2b134',
      background: '#0f3d3e',
      text: '#f7f3ea',
    },
    fonts: { heading: 'Playfair Display', body: 'Inter' },
    samples: EVENT_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const { bottom } = safeEnds(f);
      const story = f.aspect === 'story';
      // The photo: a tall column on the right; across the top of a story.
      const pic: Box = story
        ? { x: 0, y: 0, w: f.width, h: Math.round(f.height * 0.42) }
        : {
            x: Math.round(f.width * 0.54),
            y: 0,
            w: f.width - Math.round(f.width * 0.54),
            h: f.height,
          };
      const c: Box = story
        ? { x: safe.x, y: pic.h + 56 * u, w: safe.w, h: bottom - pic.h - 56 * u }
        : { x: safe.x, y: safe.y, w: pic.x - 56 * u - safe.x, h: safe.h };
      const lg = per(f, 80, 88, 0, 72) * u;
      const detail = per(f, 32, 34, 38, 30) * u;
      const rowH = linesH(1, detail, 1.2);
      const btnH = per(f, 84, 92, 104, 80) * u;
      const [lgRow, , rule, , label, , head, , date, , time, , place, , btn] = split(c.y, c.h, [
        story ? 0 : lg,
        story ? 0 : per(f, 48, 64, 0, 28) * u,
        4 * u,
        per(f, 20, 24, 28, 16) * u,
        40 * u,
        12 * u,
        fr(1),
        per(f, 28, 36, 40, 24) * u,
        rowH,
        10 * u,
        rowH,
        10 * u,
        rowH,
        per(f, 36, 48, 56, 28) * u,
        btnH,
      ]);
      const dotD = 14 * u;
      const row = (slot: string, span: [number, number], bold: boolean) => [
        circle(c.x + dotD / 2, span[0] + span[1] / 2, dotD, { slot, fill: 'accent' }),
        slotText(slot, box([c.x + dotD + 22 * u, c.w - dotD - 22 * u], span), {
          size: detail,
          font: 'body',
          weight: bold ? 'bold' : 'normal',
          color: 'text',
          valign: 'middle',
          fit: 'ellipsis',
        }),
      ];
      const storyLogo = 108 * u;
      return [
        ...photo(pic, 'secondary'),
        ...(story
          ? [
              rect(
                { x: safe.x, y: safe.y, w: storyLogo, h: storyLogo },
                { slot: 'logo', fill: 'background', radius: 24 * u },
              ),
              logo({
                x: safe.x + 14 * u,
                y: safe.y + 14 * u,
                w: storyLogo - 28 * u,
                h: storyLogo - 28 * u,
              }),
            ]
          : [logo({ x: c.x, y: lgRow[0], w: lg, h: lgRow[1] })]),
        hrule(c.x, rule[0], 96 * u, { slot: 'label', stroke: 'accent', stroke_width: 4 * u }),
        slotText('label', box([c.x, c.w], label), {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          valign: 'middle',
          fit: 'ellipsis',
        }),
        slotText('headline', box([c.x, c.w], head), {
          size: per(f, 80, 96, 108, 84) * u,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.08,
        }),
        ...row('date', date, true),
        ...row('time', time, false),
        ...row('place', place, false),
        ...button('cta', box([c.x, Math.min(c.w, per(f, 400, 420, 480, 360) * u)], btn), {
          fill: 'primary',
          color: 'background',
          size: per(f, 30, 32, 36, 30) * u,
        }),
      ];
    },
  },
  {
    name: 'event-invite',
    title: 'Invitation: centred serif type in a fine double frame',
    niche: 'event',
    aspect: 'story',
    premium: false,
    tags: ['event', 'invitation', 'wedding', 'gala', 'rsvp', 'minimal', 'elegant', 'serif'],
    palette: {
      primary: '#3b2f2f',
      secondary: '#e9dfd0',
      accent: '#b08d57',
      background: '#f7f1e8',
      text: '#3b2f2f',
    },
    fonts: { heading: 'Playfair Display', body: 'Lora' },
    samples: {
      ...EVENT_SAMPLES,
      headline: {
        short: 'An Evening in the Garden',
        long: 'An evening in the garden to celebrate ten years of friends, neighbours and good food',
      },
      label: { short: 'You are invited', long: 'Together with our families, you are invited to' },
      cta: { short: 'RSVP by May 30', long: 'Kindly reply by May 30 on our website' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const cx = f.width / 2;
      const outer = per(f, 36, 36, 44, 22) * u;
      const gap = 14 * u;
      const lg = per(f, 84, 88, 104, 72) * u;
      const hSize = per(f, 84, 92, 112, 68) * u;
      const hLines = per(f, 3, 3, 4, 2);
      const detail = per(f, 36, 38, 44, 36) * u;
      const btnH = per(f, 80, 84, 96, 64) * u;
      const group = [
        lg,
        per(f, 40, 48, 64, 20) * u,
        linesH(1, 30 * u, 1.15),
        per(f, 20, 24, 32, 12) * u,
        linesH(hLines, hSize, 1.1),
        per(f, 28, 36, 48, 16) * u,
        24 * u,
        per(f, 28, 36, 48, 16) * u,
        linesH(1, detail * 1.3),
        8 * u,
        linesH(1, detail),
        8 * u,
        linesH(1, detail),
        per(f, 36, 48, 64, 20) * u,
        btnH,
      ] as const;
      const total = group.reduce((s, v) => s + v, 0);
      const start = safe.y + Math.max(0, (safe.h - total) / 2);
      const [lgRow, , label, , head, , orn, , date, , time, , place, , btn] = split(
        start,
        total,
        group,
      );
      const textW = f.wide ? safe.w * 0.8 : safe.w * 0.92;
      const across: [number, number] = [cx - textW / 2, textW];
      const centred = {
        align: 'center' as const,
        valign: 'middle' as const,
        fit: 'ellipsis' as const,
      };
      const ornY = orn[0] + orn[1] / 2;
      const btnW = Math.min(safe.w * 0.8, per(f, 420, 440, 480, 340) * u);
      return [
        // A fine double frame around the page, gold on cream.
        rect(
          { x: outer, y: outer, w: f.width - 2 * outer, h: f.height - 2 * outer },
          { fill: null, stroke: 'accent', stroke_width: 3 * u },
        ),
        rect(
          {
            x: outer + gap,
            y: outer + gap,
            w: f.width - 2 * (outer + gap),
            h: f.height - 2 * (outer + gap),
          },
          { fill: null, stroke: 'accent', stroke_width: 1.5 * u },
        ),
        logo({ x: cx - lg, y: lgRow[0], w: lg * 2, h: lgRow[1] }),
        slotText('label', box(across, label), {
          size: 30 * u,
          font: 'body',
          color: 'text',
          upper: true,
          line_height: 1.15,
          ...centred,
        }),
        slotText('headline', box(across, head), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          align: 'center',
          valign: 'middle',
          line_height: 1.1,
        }),
        // An ornament under the headline: a small diamond between two rules.
        hrule(cx - 150 * u, ornY, 110 * u, {
          slot: 'headline',
          stroke: 'accent',
          stroke_width: 2 * u,
        }),
        hrule(cx + 40 * u, ornY, 110 * u, {
          slot: 'headline',
          stroke: 'accent',
          stroke_width: 2 * u,
        }),
        rect(
          { x: cx - 11 * u, y: ornY - 11 * u, w: 22 * u, h: 22 * u },
          { slot: 'headline', fill: 'accent', rotation: 45 },
        ),
        slotLine('date', box(across, date), detail * 1.3, {
          font: 'heading',
          weight: 'bold',
          color: 'text',
          align: 'center',
        }),
        slotText('time', box(across, time), {
          size: detail,
          font: 'body',
          color: 'text',
          line_height: 1.15,
          ...centred,
        }),
        slotText('place', box(across, place), {
          size: detail,
          font: 'body',
          color: 'text',
          line_height: 1.15,
          ...centred,
        }),
        ...button('cta', box([cx - btnW / 2, btnW], btn), {
          fill: null,
          stroke: 'primary',
          strokeWidth: 2 * u,
          color: 'primary',
          size: per(f, 28, 30, 34, 26) * u,
          font: 'body',
          upper: true,
        }),
      ];
    },
  },
];
