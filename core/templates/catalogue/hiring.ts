// Hiring templates: job posts with a role, where and how, and a way to apply.
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

/** Copy that reads as a job post. */
const HIRING_SAMPLES: Record<string, Sample> = {
  headline: {
    short: "We're hiring",
    long: "We're growing fast and looking for curious people to join our team",
  },
  role: { short: 'Product Designer', long: 'Senior Product Designer, Growth and Onboarding' },
  place: { short: 'Remote', long: 'Berlin, Lisbon or fully remote within Europe' },
  contract: { short: 'Full-time', long: 'Full-time, 32-hour week, hybrid' },
  label: { short: 'Join us', long: 'Applications open until the end of the month' },
  cta: { short: 'Apply now', long: 'Apply on our careers page before June 30' },
  body: {
    short: 'Help us build tools teams love.',
    long: 'You will shape how thousands of teams plan and publish their work: research, prototype and ship with a small, kind team that values craft and calm deadlines.',
  },
};

export const HIRING: TemplateSpec[] = [
  {
    name: 'hiring-join-us',
    title: "We're hiring: big headline, team photo and role details",
    niche: 'hiring',
    aspect: 'portrait',
    premium: false,
    tags: ['hiring', 'jobs', 'careers', 'recruiting', 'team', 'photo', 'warm'],
    palette: {
      primary: '#c2410c',
      secondary: '#fed7aa',
      accent: '#c2410c',
      background: '#fff7ed',
      text: '#1c1917',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: HIRING_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const { right } = safeEnds(f);
      const side = f.wide || f.aspect === 'square';
      const story = f.aspect === 'story';
      // The photo: a column on the right (square, landscape), a band across the middle
      // (portrait), the top of a story.
      const picX = Math.round(f.width * (f.wide ? 0.52 : 0.56));
      const storyPic = Math.round(f.height * 0.37);
      const c: Box = side
        ? { x: safe.x, y: safe.y, w: picX - 56 * u - safe.x, h: safe.h }
        : story
          ? { x: safe.x, y: storyPic + 48 * u, w: safe.w, h: safe.y + safe.h - storyPic - 48 * u }
          : safe;
      const lg = per(f, 84, 88, 96, 72) * u;
      const hSize = per(f, 108, 132, 150, 120) * u;
      const roleSize = per(f, 48, 52, 60, 44) * u;
      const chipH = per(f, 60, 64, 72, 56) * u;
      const btnH = per(f, 84, 92, 104, 80) * u;
      const [lgRow, , head, , pic, , role, , chips, , btn] = split(c.y, c.h, [
        story ? 40 * u : lg,
        per(f, 28, 32, 16, 20) * u,
        story ? fr(1) : linesH(2, hSize, 1.02),
        side || story ? 0 : 40 * u,
        side || story ? 0 : fr(1),
        side ? fr(1) : 36 * u,
        linesH(2, roleSize, 1.15),
        24 * u,
        chipH,
        per(f, 32, 40, 48, 28) * u,
        btnH,
      ]);
      const photoBox: Box = side
        ? { x: picX, y: 0, w: f.width - picX, h: f.height }
        : story
          ? { x: 0, y: 0, w: f.width, h: storyPic }
          : { x: 0, y: pic[0], w: f.width, h: pic[1] };
      // On a story the logo sits on a chip on the photo, the label takes the logo's row.
      const logoBox: Box = story
        ? { x: safe.x + 14 * u, y: safe.y + 14 * u, w: lg, h: lg }
        : { x: c.x, y: lgRow[0], w: lg, h: lgRow[1] };
      const labelBox: Box = story
        ? box([c.x, c.w], lgRow)
        : oneLine({ x: c.x + lg + 24 * u, y: lgRow[0], w: c.w - lg - 24 * u, h: lg }, 28 * u);
      const chipW = (c.w - 20 * u) / 2;
      const chipText = per(f, 28, 30, 34, 26) * u;
      const chip = (slot: string, x: number) => [
        rect(
          { x, y: chips[0], w: chipW, h: chipH },
          { slot, fill: null, stroke: 'primary', stroke_width: 3 * u, radius: chipH / 2 },
        ),
        slotText(
          slot,
          oneLine({ x: x + 24 * u, y: chips[0], w: chipW - 48 * u, h: chipH }, chipText),
          {
            size: chipText,
            font: 'body',
            weight: 'bold',
            color: 'text',
            align: 'center',
            valign: 'middle',
            fit: 'ellipsis',
          },
        ),
      ];
      return [
        ...photo(photoBox, 'secondary'),
        ...(story
          ? [
              rect(
                { x: safe.x, y: safe.y, w: lg + 28 * u, h: lg + 28 * u },
                { slot: 'logo', fill: 'background', radius: 24 * u },
              ),
            ]
          : []),
        logo(logoBox),
        slotText('label', labelBox, {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'text',
          upper: true,
          align: story ? 'left' : 'right',
          valign: 'middle',
          fit: 'ellipsis',
        }),
        slotText('headline', box([c.x, c.w], head), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'primary',
          line_height: 1.02,
          valign: side || story ? 'top' : 'bottom',
        }),
        slotText('role', box([c.x, c.w], role), {
          size: roleSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.15,
          valign: 'bottom',
        }),
        ...chip('place', c.x),
        ...chip('contract', c.x + chipW + 20 * u),
        ...button(
          'cta',
          box([c.x, Math.min(c.w, right - c.x, per(f, 420, 460, 520, 400) * u)], btn),
          {
            fill: 'primary',
            color: '#ffffff',
            size: per(f, 32, 34, 38, 30) * u,
          },
        ),
      ];
    },
  },
  {
    name: 'hiring-open-roles',
    title: 'Open roles: a list of jobs under a bold headline',
    niche: 'hiring',
    aspect: 'landscape',
    premium: false,
    tags: ['hiring', 'jobs', 'careers', 'open roles', 'list', 'dark', 'bold'],
    palette: {
      primary: '#c6f432',
      secondary: '#2a2a2a',
      accent: '#c6f432',
      background: '#111111',
      text: '#f5f5f5',
    },
    fonts: { heading: 'Bebas Neue', body: 'Inter' },
    samples: {
      ...HIRING_SAMPLES,
      role_2: {
        short: 'Data Analyst',
        long: 'Senior Data Analyst, Marketing Insights and Attribution',
      },
      role_3: {
        short: 'Support Lead',
        long: 'Customer Support Lead for the Americas, evening shifts',
      },
    },
    layout: (f) => {
      const { safe, u } = f;
      const { right, bottom } = safeEnds(f);
      const lg = per(f, 80, 88, 100, 72) * u;
      const hSize = per(f, 190, 210, 240, 200) * u;
      const roleSize = per(f, 44, 48, 54, 40) * u;
      const rowH = linesH(2, roleSize, 1.1) + 24 * u;
      const btnH = per(f, 84, 92, 104, 80) * u;
      // The headline block: the left column on landscape, the top of the page elsewhere.
      const left: Box = f.wide ? { x: safe.x, y: safe.y, w: safe.w * 0.42, h: safe.h } : safe;
      const listX = f.wide ? safe.x + safe.w * 0.48 : safe.x;
      const listW = right - listX;
      // The list of roles and the button: the right column on landscape, the bottom of the
      // page elsewhere; the headline block takes what is left.
      const listGap = per(f, 24, 40, 48, 0) * u;
      const listH = f.wide ? safe.h : 3 * rowH + listGap + btnH;
      const [, r1, r2, r3, , btn] = split(bottom - listH, listH, [
        f.wide ? fr(1) : 0,
        rowH,
        rowH,
        rowH,
        f.wide ? 40 * u : listGap,
        btnH,
      ]);
      const headEnd = f.wide ? bottom : bottom - listH - per(f, 16, 24, 32, 0) * u;
      const [lgRow, , label, , head] = split(left.y, headEnd - left.y, [
        lg,
        per(f, 24, 40, 56, 24) * u,
        40 * u,
        8 * u,
        fr(1),
      ]);
      const row = (slot: string, span: [number, number]) => {
        const y = span[0];
        const dot = 16 * u;
        return [
          hrule(listX, y, listW, { slot, stroke: 'secondary', stroke_width: 2 * u }),
          circle(listX + dot / 2, y + 12 * u + roleSize * 0.62, dot, { slot, fill: 'accent' }),
          slotText(
            slot,
            {
              x: listX + dot + 24 * u,
              y: y + 12 * u,
              w: listW - dot - 24 * u,
              h: span[1] - 12 * u,
            },
            {
              size: roleSize,
              font: 'body',
              weight: 'bold',
              color: 'text',
              line_height: 1.1,
            },
          ),
        ];
      };
      const btnW = Math.min(listW, per(f, 400, 420, 480, 380) * u);
      return [
        logo({ x: left.x, y: lgRow[0], w: lg, h: lgRow[1] }),
        slotText('label', box([left.x, left.w], label), {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          valign: 'middle',
          fit: 'ellipsis',
        }),
        slotText('headline', box([left.x, left.w], head), {
          size: hSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          upper: true,
          line_height: 0.92,
        }),
        ...row('role', r1),
        ...row('role_2', r2),
        ...row('role_3', r3),
        ...button('cta', box([listX, btnW], btn), {
          fill: 'primary',
          color: 'background',
          size: per(f, 32, 34, 38, 30) * u,
          upper: true,
        }),
        slotLine('handle', box([listX + btnW + 24 * u, listW - btnW - 24 * u], btn), 28 * u, {
          font: 'body',
          color: 'text',
          align: 'right',
        }),
      ];
    },
  },
  {
    name: 'hiring-team-story',
    title: 'Join the team: full-bleed photo with a sticker',
    niche: 'hiring',
    aspect: 'story',
    premium: true,
    tags: ['hiring', 'jobs', 'careers', 'team', 'culture', 'photo', 'sticker', 'story'],
    palette: {
      primary: '#facc15',
      secondary: '#1e293b',
      accent: '#facc15',
      background: '#0c1222',
      text: '#ffffff',
    },
    fonts: { heading: 'Oswald', body: 'Inter' },
    samples: HIRING_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const { right, bottom } = safeEnds(f);
      const lg = per(f, 88, 92, 104, 80) * u;
      const col: Box = f.wide ? { x: safe.x, y: safe.y, w: safe.w * 0.54, h: safe.h } : safe;
      const d = per(f, 230, 250, 280, 200) * u;
      // A dark panel with a slanted edge over the photo: along the bottom (its top edge
      // rising to the right), or down the left side on landscape.
      const slant = 5;
      const panelTop = f.height * per(f, 0.32, 0.36, 0.36, 0);
      const lift = (f.width / 2) * Math.tan((slant * Math.PI) / 180);
      const panel: Box = f.wide
        ? {
            x: -f.width * 0.3,
            y: -f.height * 0.2,
            w: col.x + col.w + 96 * u + f.width * 0.3,
            h: f.height * 1.4,
          }
        : { x: -f.width * 0.15, y: panelTop, w: f.width * 1.3, h: f.height };
      const top = f.wide ? safe.y + lg + 32 * u : panelTop + lift + 48 * u;
      const detail = per(f, 32, 34, 38, 30) * u;
      const btnH = per(f, 92, 96, 108, 84) * u;
      const [head, , role, , row, , btn] = split(top, bottom - top, [
        fr(1),
        per(f, 12, 16, 20, 12) * u,
        linesH(2, per(f, 44, 52, 60, 44) * u, 1.15),
        per(f, 16, 20, 28, 16) * u,
        linesH(1, detail),
        per(f, 28, 40, 48, 28) * u,
        btnH,
      ]);
      const placeW = col.w * 0.5;
      // The sticker: a turned disc across from the logo.
      const sx = right - d / 2;
      const sy = safe.y + d / 2;
      return [
        ...photo({ x: 0, y: 0, w: f.width, h: f.height }, 'secondary'),
        rect(panel, { fill: 'background', rotation: f.wide ? slant + 1 : -slant }),
        logo({ x: safe.x, y: safe.y, w: lg, h: lg }),
        circle(sx, sy, d, { slot: 'label', fill: 'accent', rotation: -12 }),
        circle(sx, sy, d - 20 * u, {
          slot: 'label',
          fill: null,
          stroke: 'background',
          stroke_width: 2 * u,
        }),
        slotText(
          'label',
          { x: sx - d * 0.34, y: sy - d * 0.26, w: d * 0.68, h: d * 0.52 },
          {
            size: per(f, 40, 44, 48, 36) * u,
            font: 'heading',
            weight: 'bold',
            color: 'background',
            on: 'accent',
            upper: true,
            align: 'center',
            valign: 'middle',
            line_height: 1.0,
            rotation: -12,
          },
        ),
        slotText('headline', box([col.x, col.w], head), {
          size: per(f, 120, 140, 176, 112) * u,
          min_size: per(f, 44, 52, 64, 40) * u,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          upper: true,
          line_height: 1.0,
          valign: 'bottom',
        }),
        slotText('role', box([col.x, col.w], role), {
          size: per(f, 48, 52, 60, 44) * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          line_height: 1.15,
        }),
        slotText('place', oneLine(box([col.x, placeW - 24 * u], row), detail), {
          size: detail,
          font: 'body',
          color: 'text',
          valign: 'middle',
          fit: 'ellipsis',
        }),
        vrule(col.x + placeW, row[0] + 6 * u, row[1] - 12 * u, {
          slot: 'contract',
          stroke: 'accent',
          stroke_width: 3 * u,
        }),
        slotText(
          'contract',
          oneLine(box([col.x + placeW + 24 * u, col.w - placeW - 24 * u], row), detail),
          {
            size: detail,
            font: 'body',
            color: 'text',
            valign: 'middle',
            fit: 'ellipsis',
          },
        ),
        ...button('cta', box([col.x, Math.min(col.w, per(f, 440, 460, 520, 420) * u)], btn), {
          fill: 'primary',
          color: 'background',
          size: per(f, 34, 34, 38, 32) * u,
          upper: true,
        }),
      ];
    },
  },
  {
    name: 'hiring-card',
    copy: { headline: 'role' },
    title: 'Job card: photo, role and details on a white card',
    niche: 'hiring',
    aspect: 'square',
    premium: false,
    tags: ['hiring', 'jobs', 'careers', 'card', 'photo', 'friendly', 'blue'],
    palette: {
      primary: '#1d4ed8',
      secondary: '#ffffff',
      accent: '#f43f5e',
      background: '#dbeafe',
      text: '#0f172a',
    },
    fonts: { heading: 'Montserrat', body: 'Roboto' },
    samples: HIRING_SAMPLES,
    layout: (f) => {
      const { safe, u } = f;
      const card: Box =
        f.aspect === 'story'
          ? { x: safe.x, y: 190 * u, w: f.width - 2 * safe.x, h: 1460 * u }
          : safe;
      const pad = per(f, 40, 44, 48, 32) * u;
      const { right, bottom } = safeEnds(f);
      const inner: Box = {
        x: card.x + pad,
        y: Math.max(card.y + pad, safe.y),
        w: Math.min(card.x + card.w - pad, right) - card.x - pad,
        h: 0,
      };
      inner.h = Math.min(card.y + card.h - pad, bottom) - inner.y;
      // The photo: the card's top (its left half on landscape), inset like a print.
      const pic: Box = f.wide
        ? { x: card.x + pad, y: card.y + pad, w: card.w * 0.44, h: card.h - 2 * pad }
        : {
            x: card.x + pad,
            y: card.y + pad,
            w: card.w - 2 * pad,
            h: card.h * per(f, 0.42, 0.5, 0.52, 0),
          };
      const c: Box = f.wide
        ? { x: pic.x + pic.w + 48 * u, y: inner.y, w: 0, h: inner.h }
        : { x: inner.x, y: pic.y + pic.h + 40 * u, w: inner.w, h: 0 };
      if (f.wide) c.w = inner.x + inner.w - c.x;
      else c.h = inner.y + inner.h - c.y;
      const roleSize = per(f, 60, 68, 80, 56) * u;
      const detail = per(f, 30, 32, 36, 30) * u;
      const btnH = per(f, 80, 88, 100, 76) * u;
      const [label, , role, , place, , contract, , btn] = split(c.y, c.h, [
        40 * u,
        per(f, 8, 12, 16, 8) * u,
        fr(1),
        per(f, 12, 20, 24, 12) * u,
        linesH(1, detail),
        4 * u,
        linesH(1, detail),
        per(f, 20, 32, 40, 24) * u,
        btnH,
      ]);
      const chip = per(f, 96, 104, 116, 88) * u;
      const chipX = pic.x + 20 * u;
      const chipY = Math.max(pic.y + 20 * u, safe.y);
      const blob = Math.min(f.width, f.height) * 0.34;
      const detailStyle = {
        size: detail,
        font: 'body' as const,
        color: 'text' as const,
        on: 'secondary' as const,
        valign: 'middle' as const,
        fit: 'ellipsis' as const,
      };
      const btnW = Math.min(c.w, per(f, 360, 400, 460, 340) * u);
      return [
        // Two discs behind the card's corners: the accent, and a deeper blue.
        circle(card.x + card.w, card.y, blob, { fill: 'accent' }),
        circle(card.x, card.y + card.h, blob * 0.8, { fill: 'primary', opacity: 0.85 }),
        rect(card, { fill: 'secondary', radius: 32 * u }),
        ...photo(pic, 'background'),
        rect(
          { x: chipX, y: chipY, w: chip, h: chip },
          { slot: 'logo', fill: '#ffffff', radius: 20 * u },
        ),
        logo({ x: chipX + 12 * u, y: chipY + 12 * u, w: chip - 24 * u, h: chip - 24 * u }),
        slotText('label', box([c.x, c.w], label), {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'primary',
          on: 'secondary',
          upper: true,
          valign: 'middle',
          fit: 'ellipsis',
        }),
        slotText('role', box([c.x, c.w], role), {
          size: roleSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          on: 'secondary',
          line_height: 1.1,
        }),
        slotText('place', box([c.x, c.w], place), { ...detailStyle, weight: 'bold' }),
        slotText('contract', box([c.x, c.w], contract), detailStyle),
        ...button('cta', box([c.x, btnW], btn), {
          fill: 'primary',
          color: '#ffffff',
          size: per(f, 30, 32, 36, 30) * u,
        }),
        slotLine('handle', box([c.x + btnW + 24 * u, c.w - btnW - 24 * u], btn), 28 * u, {
          font: 'body',
          color: 'text',
          on: 'secondary',
          align: 'right',
        }),
      ];
    },
  },
  {
    name: 'hiring-minimal',
    copy: { headline: 'role' },
    title: 'Minimal job post: the role in large type',
    niche: 'hiring',
    aspect: 'landscape',
    premium: false,
    tags: ['hiring', 'jobs', 'careers', 'minimal', 'clean', 'typographic', 'linkedin'],
    palette: {
      primary: '#111827',
      secondary: '#e7e5e4',
      accent: '#047857',
      background: '#fafaf9',
      text: '#111827',
    },
    fonts: { heading: 'Inter', body: 'Inter' },
    samples: {
      ...HIRING_SAMPLES,
      salary: { short: '$90k–$120k', long: '€75,000 to €95,000 a year plus equity' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const { right } = safeEnds(f);
      const lg = per(f, 72, 80, 96, 64) * u;
      const roleSize = per(f, 112, 128, 144, 128) * u;
      const detail = per(f, 32, 34, 38, 30) * u;
      const btnH = per(f, 80, 88, 100, 76) * u;
      const detailsH =
        f.wide || f.aspect === 'square' ? linesH(1, detail) : 3 * linesH(1, detail) + 24 * u;
      const [lgRow, , label, , role, , rule, , details, , btn] = split(safe.y, safe.h, [
        lg,
        per(f, 56, 96, 120, 32) * u,
        40 * u,
        per(f, 16, 20, 24, 12) * u,
        fr(1),
        per(f, 32, 40, 48, 24) * u,
        2 * u,
        per(f, 32, 40, 48, 24) * u,
        detailsH,
        per(f, 48, 64, 72, 36) * u,
        btnH,
      ]);
      const sq = 20 * u;
      const one = linesH(1, detail);
      // Details: three columns on square and landscape, three rows on the tall aspects.
      const cells = (['place', 'contract', 'salary'] as const).map((slot, i) => {
        const inRow = f.wide || f.aspect === 'square';
        const w = inRow ? safe.w / 3 : safe.w;
        const b: Box = inRow
          ? { x: safe.x + i * w, y: details[0], w: w - 24 * u, h: one }
          : { x: safe.x, y: details[0] + i * (one + 12 * u), w, h: one };
        return slotText(slot, b, {
          size: detail,
          font: 'body',
          weight: i === 0 ? 'bold' : 'normal',
          color: 'text',
          valign: 'middle',
          fit: 'ellipsis',
        });
      });
      const btnW = Math.min(safe.w, per(f, 380, 400, 460, 360) * u);
      return [
        logo({ x: safe.x, y: lgRow[0], w: lg, h: lgRow[1] }),
        rect(
          { x: safe.x, y: label[0] + label[1] / 2 - sq / 2, w: sq, h: sq },
          { slot: 'label', fill: 'accent' },
        ),
        slotText('label', box([safe.x + sq + 20 * u, safe.w - sq - 20 * u], label), {
          size: 28 * u,
          font: 'body',
          weight: 'bold',
          color: 'accent',
          upper: true,
          valign: 'middle',
          fit: 'ellipsis',
        }),
        slotText('role', box([safe.x, f.wide ? safe.w * 0.8 : safe.w], role), {
          size: roleSize,
          font: 'heading',
          weight: 'bold',
          color: 'text',
          line_height: 1.04,
        }),
        hrule(safe.x, rule[0], safe.w, { slot: 'role', stroke: 'secondary', stroke_width: 2 * u }),
        ...cells,
        ...button('cta', box([safe.x, btnW], btn), {
          fill: 'primary',
          color: '#ffffff',
          size: per(f, 30, 32, 36, 28) * u,
          radius: 12 * u,
        }),
        slotLine(
          'handle',
          box([safe.x + btnW + 24 * u, right - safe.x - btnW - 24 * u], btn),
          28 * u,
          {
            font: 'body',
            color: 'text',
            align: 'right',
          },
        ),
      ];
    },
  },
];
