// Podcast templates: new episodes, guests, quotes from a show.
import type { Box, Colour, DraftLayer, Sample, TemplateSpec } from '../kit.ts';
import {
  box,
  circleFromCorner,
  fr,
  glyph,
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
} from './parts.ts';

const EPISODE: Sample = { short: 'EP 42', long: 'Episode 142, Season 3' };
const GUEST: Sample = { short: 'Ana Ruiz', long: 'Dr. Ana Ruiz-Fernández de la Vega' };
const TITLE: Sample = {
  short: 'Building in public',
  long: 'Why the best founders build in public, and what it cost them to learn it',
};
const LISTEN: Sample = {
  short: 'Listen now',
  long: 'Listen on Spotify, Apple Podcasts and YouTube',
};

/** A sound wave: rounded bars of a fixed rhythm across `b`, centred on its middle line. */
function waveform(b: Box, bars: number, fill: Colour, opacity = 1): DraftLayer[] {
  const gap = 0.6;
  const w = b.w / (bars + (bars - 1) * gap);
  return Array.from({ length: bars }, (_, i) => {
    const level = 0.16 + 0.84 * Math.abs(Math.sin(i * 1.7) * Math.cos(i * 0.37 + 0.4));
    const h = Math.max(w, b.h * level);
    return rect(
      { x: b.x + i * w * (1 + gap), y: b.y + (b.h - h) / 2, w, h },
      { fill, radius: w / 2, opacity },
    );
  });
}

/**
 * A play triangle pointing right, `s` tall, centred on cx, cy: a `fg` block whose top and
 * bottom right corners are cut away by two turned `bg` blocks (the fonts carry no ▶).
 */
function playTriangle(cx: number, cy: number, s: number, fg: Colour, bg: Colour): DraftLayer[] {
  const w = s * 0.866;
  // The triangle's centre of area sits a third of its width from the flat side.
  const x0 = cx - w / 3;
  const y0 = cy - s / 2;
  const deg = 30;
  const rad = (deg * Math.PI) / 180;
  const long = s * 1.3;
  const thick = s * 0.6;
  const mask = (my: number, sign: 1 | -1) => {
    const mx = x0 + w / 2;
    const ccx = mx + (thick / 2) * Math.sin(rad);
    const ccy = my - sign * (thick / 2) * Math.cos(rad);
    return rect(
      { x: ccx - long / 2, y: ccy - thick / 2, w: long, h: thick },
      { fill: bg, rotation: sign * deg },
    );
  };
  return [
    rect({ x: x0, y: y0, w, h: s }, { fill: fg }),
    mask(y0 + s / 4, 1),
    mask(y0 + (s * 3) / 4, -1),
  ];
}

export const PODCAST: TemplateSpec[] = [
  {
    name: 'podcast-guest-spotlight',
    title: 'Podcast guest spotlight with episode badge',
    niche: 'podcast',
    aspect: 'square',
    premium: false,
    tags: ['podcast', 'guest', 'interview', 'episode', 'photo'],
    palette: {
      primary: '#c6f432',
      secondary: '#2a2540',
      accent: '#c6f432',
      background: '#16131f',
      text: '#f4f1ff',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: {
      episode: EPISODE,
      guest: GUEST,
      headline: TITLE,
      label: { short: 'This week', long: 'This week on the show, our guest' },
      cta: LISTEN,
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const side = f.wide || f.aspect === 'square';
      const d = 170 * u;
      let pic: Box;
      let copy: Box;
      let decor: DraftLayer[];
      if (side) {
        // Photo bled down the right half, a lime bar along its edge.
        const px = Math.round(f.width * 0.52);
        pic = { x: px, y: 0, w: f.width - px, h: f.height };
        copy = { x: safe.x, y: safe.y, w: px - safe.x - 56 * u, h: safe.h };
        decor = [
          rect({ x: px - 14 * u, y: 0, w: 14 * u, h: f.height }, { slot: 'photo', fill: 'accent' }),
        ];
      } else {
        // Photo on top, a lime outline offset behind it.
        const py = per(f, 0, safe.y, 150, 0);
        pic = { x: safe.x, y: py, w: safe.w - 24 * u, h: per(f, 0, 560, 800, 0) };
        copy = {
          x: safe.x,
          y: py + pic.h + 72 * u,
          w: safe.w,
          h: end.bottom - py - pic.h - 72 * u,
        };
        decor = [
          rect(
            { ...pic, x: pic.x + 24 * u, y: pic.y + 24 * u },
            { slot: 'photo', fill: null, stroke: 'accent', stroke_width: 4 * u },
          ),
        ];
      }
      const gSize = per(f, 60, 72, 84, 64) * u;
      const [logoRow, , label, , guest, , role, , headline, , row] = split(copy.y, copy.h, [
        side ? 88 * u : 0,
        side ? fr(1) : 0,
        40 * u,
        12 * u,
        gSize * 1.08 * (side ? 2.1 : 1.25),
        8 * u,
        44 * u,
        20 * u,
        side ? per(f, 36, 36, 36, 34) * u * 1.35 * 3.2 : fr(1),
        32 * u,
        88 * u,
      ]);
      const bx = side ? pic.x + 40 * u : pic.x + pic.w - d - 32 * u;
      const by = Math.max(pic.y + 32 * u, safe.y);
      const ctaW = Math.min(copy.w * (side ? 0.75 : 0.5), 400 * u);
      return [
        ...decor,
        ...photo(pic, 'secondary'),
        circleFromCorner(bx, by, d, { slot: 'episode', fill: 'accent' }),
        slotText(
          'episode',
          { x: bx + 20 * u, y: by + d * 0.22, w: d - 40 * u, h: d * 0.56 },
          {
            size: 40 * u,
            font: 'heading',
            weight: 'bold',
            color: 'background',
            on: 'accent',
            align: 'center',
            valign: 'middle',
            line_height: 1.0,
          },
        ),
        ...(side
          ? logoTile({ x: copy.x, y: logoRow[0], w: 88 * u, h: 88 * u }, 'text')
          : logoTile({ x: copy.x + copy.w - 88 * u, y: row[0], w: 88 * u, h: 88 * u }, 'text')),
        slotText('label', box([copy.x, copy.w], label), {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          valign: 'bottom',
          fit: 'ellipsis',
        }),
        slotText('guest', box([copy.x, copy.w], guest), {
          size: gSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.08,
          valign: side ? 'bottom' : 'top',
        }),
        slotText('role', oneLineLoose(box([copy.x, copy.w], role), 32 * u, 1.2), {
          size: 32 * u,
          font: 'body',
          color: 'text',
          opacity: 0.75,
          fit: 'ellipsis',
        }),
        line(
          { x: copy.x, y: headline[0] - 4 * u, w: 64 * u, h: 0 },
          { slot: 'headline', stroke: 'accent', stroke_width: 4 * u },
        ),
        slotText(
          'headline',
          { ...box([copy.x, copy.w], headline), y: headline[0] + 16 * u, h: headline[1] - 16 * u },
          {
            size: per(f, 36, 40, 44, 34) * u,
            font: 'body',
            color: 'text',
            line_height: 1.35,
          },
        ),
        ...looseButton('cta', box([copy.x, ctaW], row), {
          fill: 'primary',
          color: 'background',
          size: 30 * u,
        }),
      ];
    },
  },
  {
    name: 'podcast-new-episode',
    title: 'New episode: cover art, sound wave and title',
    niche: 'podcast',
    aspect: 'story',
    premium: true,
    tags: ['podcast', 'new episode', 'audio', 'cover', 'photo'],
    palette: {
      primary: '#ff7a59',
      secondary: '#1e3350',
      accent: '#ff7a59',
      background: '#0f1b2d',
      text: '#ffffff',
    },
    fonts: { heading: 'Bebas Neue', body: 'Roboto' },
    samples: {
      episode: EPISODE,
      guest: { short: 'with Ana Ruiz', long: 'with Dr. Ana Ruiz-Fernández, climate scientist' },
      headline: TITLE,
      label: { short: 'New episode', long: 'Brand new episode out this morning' },
      cta: LISTEN,
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const hSize = per(f, 96, 110, 130, 92) * u;
      const wave = per(f, 70, 80, 96, 64) * u;
      const common = (copy: Box, withWave: boolean, pic: Box) => {
        const [w, , top, , headline, , guest, , row] = split(copy.y, copy.h, [
          withWave ? wave : 0,
          withWave ? 32 * u : 0,
          48 * u,
          12 * u,
          fr(1),
          12 * u,
          48 * u,
          32 * u,
          92 * u,
        ]);
        const ctaW = Math.min(copy.w - 120 * u, 460 * u);
        return [
          ...photo(pic, 'secondary'),
          ...(withWave ? waveform(box([copy.x, copy.w], w), 36, 'accent') : []),
          slotText('label', oneLineLoose(box([copy.x, copy.w * 0.6], top), 30 * u), {
            size: 30 * u,
            font: 'body',
            weight: 'bold',
            color: 'accent',
            upper: true,
            valign: 'middle',
            fit: 'ellipsis',
          }),
          slotText(
            'episode',
            oneLineLoose(box([copy.x + copy.w * 0.6, copy.w * 0.4], top), 30 * u),
            {
              size: 30 * u,
              font: 'body',
              weight: 'bold',
              color: 'text',
              upper: true,
              align: 'right',
              valign: 'middle',
              fit: 'ellipsis',
            },
          ),
          slotText('headline', box([copy.x, copy.w], headline), {
            size: hSize,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.0,
            upper: true,
          }),
          slotText('guest', oneLineLoose(box([copy.x, copy.w], guest), 34 * u, 1.2), {
            size: 34 * u,
            font: 'body',
            color: 'text',
            opacity: 0.85,
            fit: 'ellipsis',
          }),
          ...looseButton('cta', box([copy.x, ctaW], row), {
            fill: 'primary',
            color: 'background',
            size: 30 * u,
          }),
          ...logoTile(
            { x: copy.x + copy.w - 88 * u, y: row[0] + 2 * u, w: 88 * u, h: 88 * u },
            'text',
          ),
        ];
      };
      if (f.wide) {
        const size = safe.h;
        const pic = { x: safe.x, y: safe.y, w: size, h: size };
        const cx = safe.x + size + 56 * u;
        return common({ x: cx, y: safe.y, w: end.right - cx, h: safe.h }, true, pic);
      }
      if (f.aspect === 'square') {
        // Cover top left, a sound wave down its right side, the copy below.
        const size = 440 * u;
        const pic = { x: safe.x, y: safe.y, w: size, h: size };
        const wx = safe.x + size + 48 * u;
        return [
          ...waveform(
            { x: wx, y: safe.y + 40 * u, w: end.right - wx, h: size - 80 * u },
            16,
            'accent',
          ),
          ...common(
            { x: safe.x, y: safe.y + size + 40 * u, w: safe.w, h: safe.h - size - 40 * u },
            false,
            pic,
          ),
        ];
      }
      // Tall: a big square cover at the top (bled above the safe area on a story).
      const size = per(f, 0, 560, 800, 0);
      const py = per(f, 0, safe.y, 140, 0);
      const pic = { x: (f.width - size) / 2, y: py, w: size, h: size };
      return common(
        { x: safe.x, y: py + size + 48 * u, w: safe.w, h: end.bottom - py - size - 48 * u },
        true,
        pic,
      );
    },
  },
  {
    name: 'podcast-quote-card',
    copy: { headline: 'quote' },
    title: 'Podcast quote card with the guest',
    niche: 'podcast',
    aspect: 'portrait',
    premium: false,
    tags: ['podcast', 'quote', 'guest', 'interview', 'serif'],
    palette: {
      primary: '#1e1b18',
      secondary: '#e9dfcf',
      accent: '#c2410c',
      background: '#f6f1e7',
      text: '#1e1b18',
    },
    fonts: { heading: 'Playfair Display', body: 'Inter', accent: 'Playfair Display' },
    samples: {
      quote: {
        short: 'Consistency beats intensity, every single time.',
        long: 'Nobody remembers the one brilliant post. They remember that you showed up every week, said something useful, and never made them feel sold to. Consistency beats intensity, every single time.',
      },
      guest: GUEST,
      episode: EPISODE,
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const pic: Box = f.wide
        ? {
            x: Math.round(f.width * 0.64),
            y: 0,
            w: f.width - Math.round(f.width * 0.64),
            h: f.height,
          }
        : { x: 0, y: 0, w: 0, h: 0 };
      const col: Box = f.wide ? { ...safe, w: pic.x - safe.x - 64 * u } : safe;
      const face = f.wide ? 0 : per(f, 150, 170, 220, 0) * u;
      const qSize = per(f, 60, 68, 76, 56) * u;
      const markSize = per(f, 300, 340, 400, 280) * u;
      const [mark, , quote, , rule, , who, , footer] = split(col.y, col.h, [
        per(f, 120, 150, 180, 110) * u,
        16 * u,
        fr(1),
        48 * u,
        4 * u,
        40 * u,
        Math.max(face, 120 * u),
        per(f, 32, 48, 64, 28) * u,
        64 * u,
      ]);
      const tx = col.x + (face ? face + 32 * u : 0);
      const [name, role] = split(who[0] + who[1] / 2 - 50 * u, 100 * u, [56 * u, 44 * u]);
      return [
        ...(f.wide ? photo(pic, 'secondary') : []),
        // The opening quote mark's ink sits in the top of its line: the box reaches into the
        // quote's, where the mark's line shows nothing.
        glyph(
          '“',
          { x: col.x - 8 * u, y: mark[0], w: 240 * u, h: markSize * 1.1 },
          {
            size: markSize,
            font: 'accent',
            weight: 'bold',
            color: 'accent',
            line_height: 0.8,
            fit: 'clip',
          },
        ),
        slotText('quote', box([col.x, col.w], quote), {
          size: qSize,
          font: 'heading',
          color: 'text',
          line_height: 1.2,
          valign: 'bottom',
        }),
        line(
          { x: col.x, y: rule[0], w: 120 * u, h: 0 },
          { slot: 'guest', stroke: 'accent', stroke_width: 4 * u },
        ),
        ...(face
          ? photo({ x: col.x, y: who[0] + (who[1] - face) / 2, w: face, h: face }, 'secondary')
          : []),
        slotText('guest', box([tx, end.right - tx], name), {
          size: 40 * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          valign: 'bottom',
          fit: 'ellipsis',
        }),
        slotText('role', box([tx, end.right - tx], role), {
          size: 30 * u,
          font: 'body',
          color: 'text',
          opacity: 0.75,
          fit: 'ellipsis',
        }),
        slotText('episode', oneLineLoose(box([col.x, col.w - 220 * u], footer), 28 * u), {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          valign: 'middle',
          fit: 'ellipsis',
        }),
        logo({ x: col.x + col.w - 64 * u, y: footer[0], w: 64 * u, h: 64 * u }),
      ];
    },
  },
  {
    name: 'podcast-episode-split',
    title: 'Episode announcement: photo, number, date and time',
    niche: 'podcast',
    aspect: 'landscape',
    premium: false,
    tags: ['podcast', 'episode', 'schedule', 'live', 'photo'],
    palette: {
      primary: '#1d3557',
      secondary: '#f1c453',
      accent: '#d62839',
      background: '#fff4dc',
      text: '#1d3557',
    },
    fonts: { heading: 'Oswald', body: 'Roboto' },
    samples: {
      episode: { short: 'EP. 42', long: 'Episode 142, Season 3' },
      guest: GUEST,
      headline: TITLE,
      date: { short: 'Thu, June 12', long: 'Thursday, June 12, on every platform' },
      time: { short: '8 AM', long: '8:00 AM Eastern, 2:00 PM in Berlin' },
      cta: LISTEN,
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const pic: Box = f.wide
        ? { x: 0, y: 0, w: Math.round(f.width * 0.42), h: f.height }
        : { x: 0, y: 0, w: f.width, h: Math.round(f.height * per(f, 0.36, 0.42, 0.46, 0)) };
      const copy: Box = f.wide
        ? { x: pic.w + 64 * u, y: safe.y, w: end.right - pic.w - 64 * u, h: safe.h }
        : { x: safe.x, y: pic.h + 48 * u, w: safe.w, h: end.bottom - pic.h - 48 * u };
      // Landscape: the copy as one group, centred in its column.
      const [, episode, , headline, , guest, role, , when, , cta] = split(copy.y, copy.h, [
        f.wide ? fr(0.5) : 0,
        per(f, 96, 110, 130, 100) * u,
        8 * u,
        f.wide ? 56 * u * 1.12 * 3.1 : fr(1),
        f.wide ? 28 * u : 20 * u,
        48 * u,
        40 * u,
        24 * u,
        48 * u,
        32 * u,
        84 * u,
        f.wide ? fr(0.5) : 0,
      ]);
      const chip = 104 * u;
      const dateW = copy.w * 0.58;
      return [
        // A mustard band under the photo's edge: the one accent of the page.
        f.wide
          ? rect(
              { x: pic.w - 8 * u, y: 0, w: 24 * u, h: f.height },
              { slot: 'photo', fill: 'secondary' },
            )
          : rect(
              { x: 0, y: pic.h - 8 * u, w: f.width, h: 24 * u },
              { slot: 'photo', fill: 'secondary' },
            ),
        ...photo(pic, 'secondary'),
        rect(
          { x: safe.x, y: safe.y, w: chip, h: chip },
          { slot: 'logo', fill: '#ffffff', radius: 20 * u },
        ),
        logo({ x: safe.x + 12 * u, y: safe.y + 12 * u, w: chip - 24 * u, h: chip - 24 * u }),
        slotText('episode', box([copy.x, copy.w], episode), {
          size: per(f, 96, 110, 130, 100) * u,
          font: 'heading',
          weight: 'bold',
          color: 'accent',
          line_height: 1.0,
          valign: 'middle',
          upper: true,
        }),
        slotText('headline', box([copy.x, copy.w], headline), {
          size: per(f, 56, 64, 76, 56) * u,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.12,
          upper: true,
        }),
        slotText('guest', oneLineLoose(box([copy.x, copy.w], guest), 36 * u, 1.2), {
          size: 36 * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          fit: 'ellipsis',
        }),
        slotText('role', oneLineLoose(box([copy.x, copy.w], role), 30 * u, 1.2), {
          size: 30 * u,
          font: 'body',
          color: 'text',
          opacity: 0.8,
          fit: 'ellipsis',
        }),
        slotText('date', oneLineLoose(box([copy.x, dateW - 24 * u], when), 32 * u, 1.2), {
          size: 32 * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          upper: true,
          fit: 'ellipsis',
        }),
        circleFromCorner(copy.x + dateW - 6 * u, when[0] + when[1] / 2 - 6 * u, 12 * u, {
          slot: 'time',
          fill: 'accent',
        }),
        slotText(
          'time',
          oneLineLoose(box([copy.x + dateW + 24 * u, copy.w - dateW - 24 * u], when), 32 * u, 1.2),
          {
            size: 32 * u,
            font: 'body',
            weight: 'bold',
            color: 'text',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        ...looseButton('cta', box([copy.x, Math.min(copy.w, 440 * u)], cta), {
          fill: 'primary',
          color: '#ffffff',
          size: 30 * u,
          radius: 12 * u,
        }),
      ];
    },
  },
  {
    name: 'podcast-play-button',
    title: 'Out now: a big play button and the episode title',
    niche: 'podcast',
    aspect: 'story',
    premium: false,
    tags: ['podcast', 'out now', 'minimal', 'typography', 'audio'],
    palette: {
      primary: '#2d1b69',
      secondary: '#d8c7ff',
      accent: '#2d1b69',
      background: '#efe7ff',
      text: '#2d1b69',
    },
    fonts: { heading: 'Inter', body: 'Inter' },
    samples: {
      episode: { short: 'Episode 42', long: 'Episode 142, Season 3, part two' },
      guest: { short: 'with Ana Ruiz', long: 'with Dr. Ana Ruiz-Fernández de la Vega' },
      headline: TITLE,
      cta: LISTEN,
    },
    layout: (f) => {
      const { safe, u } = f;
      const end = safeEnds(f);
      const d = per(f, 180, 240, 300, 220) * u;
      // The play button: a disc in rings, its triangle a glyph.
      const play = (cx: number, cy: number): DraftLayer[] => [
        circleFromCorner(cx - d, cy - d, d * 2, { fill: 'secondary', opacity: 0.45 }),
        circleFromCorner(cx - d * 0.78, cy - d * 0.78, d * 1.56, {
          fill: 'secondary',
          opacity: 0.8,
        }),
        circleFromCorner(cx - d / 2, cy - d / 2, d, { fill: 'primary' }),
        ...playTriangle(cx, cy, d * 0.36, 'background', 'primary'),
      ];
      const top = [
        logo({ x: safe.x, y: safe.y, w: 80 * u, h: 80 * u }),
        slotText(
          'handle',
          oneLineLoose({ x: safe.x + 120 * u, y: safe.y, w: safe.w - 120 * u, h: 80 * u }, 30 * u),
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
      const copy = (c: Box, align: 'left' | 'center') => {
        const hSize = per(f, 60, 84, 96, 64) * u;
        const [, episode, , headline, , guest, , cta] = split(c.y, c.h, [
          f.wide ? fr(1) : 0,
          48 * u,
          16 * u,
          hSize * 1.08 * 2.15,
          16 * u,
          48 * u,
          per(f, 32, 40, 56, 28) * u,
          88 * u,
          fr(1),
        ]);
        const ctaW = Math.min(c.w, 440 * u);
        return [
          slotText('episode', oneLineLoose(box([c.x, c.w], episode), 32 * u, 1.2), {
            size: 32 * u,
            font: 'body',
            weight: 'bold',
            color: 'text',
            upper: true,
            align,
            fit: 'ellipsis',
          }),
          slotText('headline', box([c.x, c.w], headline), {
            size: hSize,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.08,
            align,
            valign: 'middle',
          }),
          slotText('guest', oneLineLoose(box([c.x, c.w], guest), 36 * u, 1.2), {
            size: 36 * u,
            font: 'body',
            color: 'text',
            align,
            fit: 'ellipsis',
          }),
          ...looseButton(
            'cta',
            box([align === 'center' ? c.x + (c.w - ctaW) / 2 : c.x, ctaW], cta),
            {
              fill: 'primary',
              color: '#ffffff',
              size: 32 * u,
            },
          ),
        ];
      };
      if (f.wide) {
        const px = safe.x + d * 0.95;
        const cx = safe.x + d * 2.1;
        return [
          ...play(px, f.height / 2),
          ...top.map((l) => (l.slot === 'handle' ? { ...l, x: cx, w: end.right - cx } : l)),
          ...copy({ x: cx, y: safe.y + 80 * u, w: end.right - cx, h: safe.h - 80 * u }, 'left'),
        ];
      }
      const cy = safe.y + 80 * u + per(f, 20, 50, 60, 0) * u + d;
      const below = cy + d + per(f, 36, 50, 70, 0) * u;
      return [
        ...play(f.width / 2, cy),
        ...top,
        ...copy({ x: safe.x, y: below, w: safe.w, h: end.bottom - below }, 'center'),
      ];
    },
  },
];
