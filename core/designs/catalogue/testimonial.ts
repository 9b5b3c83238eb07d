// Testimonial templates, and the small layout helpers the testimonial, tip, stat and sale
// templates share (text boxes, slot-bound buttons and photos, masks that round a photo).
import type {
  Box,
  Colour,
  DraftImage,
  DraftLayer,
  DraftShape,
  DraftText,
  Frame,
  Sample,
  TemplateSpec,
} from '../templateKit.ts';

// --- Shared helpers ---

type TextStyle = Omit<DraftText, 'kind' | 'slot' | 'text' | keyof Box>;
type ShapeStyle = Omit<DraftShape, 'kind' | 'shape' | keyof Box>;

/** A slot's copy in a box. */
export const say = (slot: string, b: Box, style: TextStyle): DraftText => ({
  kind: 'text',
  slot,
  ...b,
  ...style,
});

/** Furniture text (glyphs only, never words), optionally bound to a slot. */
export const glyph = (
  text: string,
  b: Box,
  style: TextStyle & { slot?: string | undefined },
): DraftText => ({ kind: 'text', text, ...b, ...style });

export const rect = (b: Box & { rotation?: number }, style: ShapeStyle): DraftShape => ({
  kind: 'shape',
  shape: 'rect',
  ...b,
  ...style,
});

/** A circle `d` across centred on cx, cy. */
export const circle = (cx: number, cy: number, d: number, style: ShapeStyle): DraftShape => ({
  kind: 'shape',
  shape: 'ellipse',
  x: cx - d / 2,
  y: cy - d / 2,
  w: d,
  h: d,
  ...style,
});

/** A horizontal rule from x to x + w at y (its round caps inside those ends). */
export const rule = (x: number, y: number, w: number, style: ShapeStyle): DraftShape => {
  const cap = (style.stroke_width ?? 0) / 2;
  return { kind: 'shape', shape: 'line', x: x + cap, y, w: w - 2 * cap, h: 0, ...style };
};

/** The photo slot over a backing colour (shown where the photo leaves gaps). */
export const photo = (b: Box, backing: Colour): DraftLayer[] => [
  rect(b, { slot: 'photo', fill: backing }),
  { kind: 'image', slot: 'photo', ...b },
];

export const logo = (b: Box): DraftImage => ({ kind: 'image', slot: 'logo', fit: 'contain', ...b });

/** The height one line of text `size` high needs (descenders included). */
export const lineH = (size: number, lineHeight = 1.2) => size * (lineHeight / 2 + 0.72);

/**
 * Makes the square photo at `b` show as a disc: a ring in `mask` (the colour it sits on)
 * paints its corners over. Images cannot be masked, so the frame is square and its corners
 * are covered instead.
 */
export function discMask(b: Box, mask: Colour, slot = 'photo'): DraftShape {
  const inner = (b.w / 2) * 0.995;
  const outer = b.w / Math.SQRT2 + 2;
  const r = (inner + outer) / 2;
  return circle(b.x + b.w / 2, b.y + b.h / 2, 2 * r, {
    slot,
    fill: null,
    stroke: mask,
    stroke_width: outer - inner,
  });
}

/** Rounds the corners of the photo at `b` to `r` by painting them over in `mask`. */
export function cornerMask(b: Box, r: number, mask: Colour, slot = 'photo'): DraftShape {
  const half = r * 0.3 + 1;
  return rect(
    { x: b.x - half, y: b.y - half, w: b.w + 2 * half, h: b.h + 2 * half },
    { slot, fill: null, stroke: mask, stroke_width: 2 * half, radius: r + half },
  );
}

/**
 * A dark scrim over the lower part of `b`, from clear at `from` (a fraction of its height)
 * to `alpha` at the bottom, in bands: text on it reads as on black.
 */
export function scrim(b: Box, from: number, alpha: number, slot = 'photo', bands = 64) {
  const top = b.y + b.h * from;
  const edge = (i: number) => Math.round(top + ((b.y + b.h - top) * i) / bands);
  return Array.from({ length: bands }, (_, i) =>
    rect(
      { x: b.x, y: edge(i), w: b.w, h: edge(i + 1) - edge(i) },
      { slot, fill: '#000000', opacity: alpha * Math.min(1, ((i + 0.5) / bands) * 1.25) },
    ),
  );
}

/**
 * An opening quote mark `h` tall drawn in shapes (so it can belong to a slot and go with
 * it): two commas, each a disc with a tail rising to the right.
 */
export function quoteMark(
  x: number,
  y: number,
  h: number,
  style: ShapeStyle & { slot?: string },
): DraftShape[] {
  const d = h * 0.58;
  const t = h * 0.3;
  const comma = (x0: number): DraftShape[] => {
    const cx = x0 + d / 2;
    const cy = y + h - d / 2;
    const b = { x: cx - d * 0.1, y: cy };
    const top = { x: x0 + d * 0.86, y: y + t / 2 };
    const len = Math.hypot(top.x - b.x, top.y - b.y);
    const angle = (Math.atan2(top.x - b.x, b.y - top.y) * 180) / Math.PI;
    return [
      circle(cx, cy, d, style),
      {
        kind: 'shape',
        shape: 'rect',
        x: (b.x + top.x) / 2 - t / 2,
        y: (b.y + top.y) / 2 - len / 2,
        w: t,
        h: len,
        rotation: angle,
        radius: t / 2,
        ...style,
      },
    ];
  };
  return [...comma(x), ...comma(x + d + h * 0.14)];
}

/** A dark scrim from the left edge of `b` (at `alpha`) to clear at `to` (a fraction of its width). */
export function scrimLeft(b: Box, to: number, alpha: number, slot = 'photo', bands = 64) {
  const end = b.x + b.w * to;
  const edge = (i: number) => Math.round(b.x + ((end - b.x) * i) / bands);
  return Array.from({ length: bands }, (_, i) =>
    rect(
      { x: edge(i), y: b.y, w: edge(i + 1) - edge(i), h: b.h },
      { slot, fill: '#000000', opacity: alpha * Math.min(1, (1 - (i + 0.5) / bands) * 1.25) },
    ),
  );
}

/** `b` turned `deg` clockwise about cx, cy: its frame moved there, turned about its own centre. */
export function turned(b: Box, cx: number, cy: number, deg: number): Box & { rotation: number } {
  const r = (deg * Math.PI) / 180;
  const dx = b.x + b.w / 2 - cx;
  const dy = b.y + b.h / 2 - cy;
  const x = cx + dx * Math.cos(r) - dy * Math.sin(r);
  const y = cy + dx * Math.sin(r) + dy * Math.cos(r);
  return { x: x - b.w / 2, y: y - b.h / 2, w: b.w, h: b.h, rotation: deg };
}

/** A filled button (or chip) whose label is the slot's copy; `fill` is what the label sits on. */
export function button(
  slot: string,
  b: Box,
  o: {
    fill: Colour;
    color: Colour;
    size: number;
    font?: DraftText['font'];
    radius?: number;
    upper?: boolean;
    stroke?: Colour;
    pad?: number;
    weight?: 'normal' | 'bold';
  },
): DraftLayer[] {
  const pad = o.pad ?? b.h / 2;
  return [
    rect(b, {
      slot,
      fill: o.fill,
      radius: o.radius ?? b.h / 2,
      ...(o.stroke ? { stroke: o.stroke, stroke_width: 3 } : {}),
    }),
    // One line, centred on the button: longer copy ends in "…".
    say(
      slot,
      {
        x: b.x + pad,
        y: b.y + (b.h - lineH(o.size, 1.1)) / 2,
        w: b.w - 2 * pad,
        h: lineH(o.size, 1.1),
      },
      {
        size: o.size,
        font: o.font ?? 'body',
        weight: o.weight ?? 'bold',
        color: o.color,
        on: o.fill,
        align: 'center',
        valign: 'middle',
        fit: 'ellipsis',
        line_height: 1.1,
        ...(o.upper ? { upper: true } : {}),
      },
    ),
  ];
}

/** The safe area's right and bottom edges. */
export const right = (f: Frame) => f.safe.x + f.safe.w;
export const bottom = (f: Frame) => f.safe.y + f.safe.h;

/** The unit for type: larger on landscape, which is shown as wide as a square but is short. */
export const typeUnit = (f: Frame) => (f.wide ? f.u * 1.4 : f.u);

/** Pick by aspect: square, portrait, story, landscape. */
export const by = <T>(f: Frame, square: T, portrait: T, story: T, landscape: T): T =>
  ({ square, portrait, story, landscape })[f.aspect];

// --- Testimonial templates ---

const QUOTE: Record<string, Sample> = {
  headline: {
    short: 'Our posts finally look like us.',
    long: 'We cut our planning time in half, and for the first time every post looks like one brand on every channel, every single week.',
  },
  role: {
    short: 'Founder, Bloom Studio',
    long: 'Head of Content Strategy at a large media company',
  },
  rating: { short: '⭐⭐⭐⭐⭐', long: '⭐⭐⭐⭐⭐' },
};

/** The author's name and role, stacked, ending at `end`: their layers and the top. */
function signature(
  f: Frame,
  x: number,
  end: number,
  w: number,
  o: {
    author: number;
    role: number;
    color: DraftText['color'];
    roleColor: DraftText['color'];
    on?: DraftText['on'];
    align?: DraftText['align'];
    upper?: boolean;
  },
): { layers: DraftLayer[]; top: number } {
  const roleY = end - lineH(o.role);
  const authorY = roleY - lineH(o.author, 1.1) - 2 * f.u;
  const common = {
    font: 'body' as const,
    fit: 'ellipsis' as const,
    ...(o.on ? { on: o.on } : {}),
    ...(o.align ? { align: o.align } : {}),
  };
  return {
    top: authorY,
    layers: [
      say(
        'author',
        { x, y: authorY, w, h: lineH(o.author, 1.1) },
        {
          ...common,
          size: o.author,
          weight: 'bold',
          color: o.color,
          line_height: 1.1,
          ...(o.upper ? { upper: true } : {}),
        },
      ),
      say(
        'role',
        { x, y: roleY, w, h: lineH(o.role) },
        {
          ...common,
          size: o.role,
          color: o.roleColor,
        },
      ),
    ],
  };
}

export const TESTIMONIAL: TemplateSpec[] = [
  {
    name: 'testimonial-portrait-card',
    title: 'Customer quote on a card with a round portrait',
    niche: 'testimonial',
    aspect: 'square',
    premium: false,
    tags: ['testimonial', 'review', 'quote', 'customer', 'portrait', 'card', 'rating'],
    palette: {
      primary: '#c2410c',
      secondary: '#fde7d4',
      accent: '#ea580c',
      background: '#f4ece1',
      text: '#1c1917',
    },
    fonts: { heading: 'Playfair Display', body: 'Inter' },
    samples: QUOTE,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      // The card keeps the margins; on a story it reaches past the safe area's top and
      // bottom (only its copy keeps inside).
      const card: Box =
        f.aspect === 'story'
          ? { x: safe.x, y: 190, w: safe.w, h: f.height - 450 }
          : { x: safe.x, y: safe.y, w: safe.w, h: safe.h };
      const pad = by(f, 64, 64, 64, 72) * u;
      const on = '#ffffff' as const;
      const starSize = 40 * t;
      const innerBottom = Math.min(card.y + card.h - pad, bottom(f));
      const sig = {
        author: 36 * t,
        role: 28 * t,
        color: 'text',
        roleColor: 'primary',
        on,
      } as const;
      const ring = (p: Box): DraftLayer[] => [
        ...photo(p, 'secondary'),
        discMask(p, on),
        circle(p.x + p.w / 2, p.y + p.h / 2, p.w + 28 * u, {
          slot: 'photo',
          stroke: 'accent',
          stroke_width: 5 * u,
        }),
      ];
      const layers: DraftLayer[] = [
        // Two soft discs of the secondary colour peek out from behind the card's corners.
        circle(f.width - 60 * u, f.height - 60 * u, 360 * u, { fill: 'secondary' }),
        circle(60 * u, 60 * u, 200 * u, { fill: 'secondary' }),
        rect(card, { slot: 'headline', fill: on, radius: 36 * u }),
      ];
      if (f.wide) {
        const d = 340 * u;
        const p: Box = { x: card.x + pad, y: card.y + (card.h - d) / 2, w: d, h: d };
        // Without a portrait the copy takes the whole card.
        const x = f.has('photo') ? p.x + d + pad + 24 * u : card.x + pad;
        const w = card.x + card.w - pad - x;
        const logoW = 200 * u;
        const top = card.y + pad;
        const s = signature(f, x, innerBottom, w, sig);
        const quoteY = top + lineH(starSize, 1) + 20 * u;
        return [
          ...layers,
          ...ring(p),
          say(
            'rating',
            { x, y: top, w: w - logoW - 24 * u, h: lineH(starSize, 1) },
            {
              size: starSize,
              font: 'body',
              color: 'text',
              on,
              fit: 'ellipsis',
              line_height: 1,
            },
          ),
          logo({ x: x + w - logoW, y: top, w: logoW, h: 72 * u }),
          say(
            'headline',
            { x, y: quoteY, w, h: s.top - 28 * u - quoteY },
            {
              size: 62 * t,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              on,
              line_height: 1.2,
              valign: 'middle',
            },
          ),
          ...s.layers,
        ];
      }
      const d = by(f, 180, 220, 300, 0) * u;
      const x = card.x + pad;
      const w = card.w - 2 * pad;
      const p: Box = { x: card.x + (card.w - d) / 2, y: card.y + pad + 14 * u, w: d, h: d };
      const logoH = by(f, 56, 64, 80, 0) * u;
      const logoY = innerBottom - logoH;
      const s = signature(f, x, logoY - 36 * u, w, { ...sig, align: 'center' });
      const starY = f.has('photo') ? p.y + d + by(f, 36, 44, 60, 0) * u : card.y + pad + 16 * u;
      const quoteY = starY + lineH(starSize, 1) + 16 * u;
      return [
        ...layers,
        ...ring(p),
        say(
          'rating',
          { x, y: starY, w, h: lineH(starSize, 1) },
          {
            size: starSize,
            font: 'body',
            color: 'text',
            on,
            align: 'center',
            fit: 'ellipsis',
            line_height: 1,
          },
        ),
        say(
          'headline',
          { x, y: quoteY, w, h: s.top - 32 * u - quoteY },
          {
            size: by(f, 64, 76, 92, 0) * u,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            on,
            align: 'center',
            line_height: 1.2,
            valign: 'middle',
          },
        ),
        ...s.layers,
        logo({ x: card.x + (card.w - 220 * u) / 2, y: logoY, w: 220 * u, h: logoH }),
      ];
    },
  },
  {
    name: 'testimonial-photo-quote',
    title: 'Customer quote over a full photo',
    niche: 'testimonial',
    aspect: 'portrait',
    premium: true,
    tags: ['testimonial', 'review', 'quote', 'customer', 'photo', 'dark'],
    palette: {
      primary: '#f5c451',
      secondary: '#1e293b',
      accent: '#f5c451',
      background: '#0b1320',
      text: '#ffffff',
    },
    fonts: { heading: 'Lora', body: 'Inter' },
    samples: QUOTE,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const mark = by(f, 110, 120, 150, 120) * u;
      if (f.wide) {
        const split = Math.round(f.width * 0.5);
        const w = split - safe.x - 64 * u;
        const s = signature(f, safe.x, bottom(f), w, {
          author: 36 * t,
          role: 28 * t,
          color: 'text',
          roleColor: 'accent',
        });
        const ruleY = s.top - 24 * u;
        const quoteY = safe.y + mark + 40 * u;
        return [
          ...photo({ x: split, y: 0, w: f.width - split, h: f.height }, 'secondary'),
          ...quoteMark(safe.x, safe.y, mark, { slot: 'headline', fill: 'accent' }),
          logo({ x: split - 64 * u - 220 * u, y: safe.y, w: 220 * u, h: 88 * u }),
          say(
            'headline',
            { x: safe.x, y: quoteY, w, h: ruleY - 36 * u - quoteY },
            {
              size: 54 * t,
              font: 'heading',
              weight: 'bold',
              color: 'text',
              line_height: 1.25,
              valign: 'middle',
            },
          ),
          rule(safe.x, ruleY, 96 * u, { slot: 'author', stroke: 'accent', stroke_width: 6 * u }),
          ...s.layers,
        ];
      }
      const full: Box = { x: 0, y: 0, w: f.width, h: f.height };
      const on = '#000000' as const;
      const s = signature(f, safe.x, bottom(f), safe.w, {
        author: by(f, 40, 40, 46, 0) * u,
        role: by(f, 30, 30, 34, 0) * u,
        color: '#ffffff',
        roleColor: 'accent',
        on,
      });
      const ruleY = s.top - 28 * u;
      const quoteH = by(f, 300, 440, 600, 0) * u;
      const quoteY = ruleY - 40 * u - quoteH;
      return [
        ...photo(full, 'secondary'),
        ...scrim(full, by(f, 0.12, 0.2, 0.25, 0), 0.92),
        logo({ x: safe.x, y: safe.y, w: 220 * u, h: 88 * u }),
        ...quoteMark(right(f) - mark * 1.26, safe.y, mark, { slot: 'headline', fill: 'accent' }),
        say(
          'headline',
          { x: safe.x, y: quoteY, w: safe.w, h: quoteH },
          {
            size: by(f, 64, 72, 84, 0) * u,
            font: 'heading',
            weight: 'bold',
            color: '#ffffff',
            on,
            line_height: 1.25,
            valign: 'bottom',
          },
        ),
        rule(safe.x, ruleY, 96 * u, { slot: 'author', stroke: 'accent', stroke_width: 6 * u }),
        ...s.layers,
      ];
    },
  },
  {
    name: 'testimonial-big-type',
    title: 'Customer quote in big serif type',
    niche: 'testimonial',
    aspect: 'story',
    premium: false,
    tags: ['testimonial', 'review', 'quote', 'typography', 'serif'],
    palette: {
      primary: '#e9c46a',
      secondary: '#165a5c',
      accent: '#e9c46a',
      background: '#0f3d3e',
      text: '#f6f1e7',
    },
    fonts: { heading: 'Playfair Display', body: 'Montserrat' },
    samples: {
      ...QUOTE,
      label: { short: 'Client love', long: 'What our clients say about working with us' },
    },
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const labelSize = 30 * t;
      const top = lineH(labelSize);
      const logoW = 200 * u;
      const s = signature(f, safe.x, bottom(f), safe.w, {
        author: 34 * t,
        role: 28 * t,
        color: 'text',
        roleColor: 'accent',
        upper: true,
      });
      const ruleY = s.top - 36 * u;
      const quoteY = safe.y + top + by(f, 60, 90, 140, 40) * u;
      const mark = by(f, 300, 380, 480, 380) * u;
      return [
        // A huge quote mark, one shade off the background, behind the copy.
        ...quoteMark(safe.x, quoteY, mark, { slot: 'headline', fill: 'secondary' }),
        say(
          'label',
          { x: safe.x, y: safe.y, w: safe.w - logoW - 32 * u, h: top },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'accent',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        logo({ x: right(f) - logoW, y: safe.y, w: logoW, h: by(f, 64, 64, 72, 72) * u }),
        say(
          'headline',
          {
            x: safe.x,
            y: quoteY,
            w: f.wide ? safe.w * 0.86 : safe.w,
            h: ruleY - 48 * u - quoteY,
          },
          {
            size: by(f, 92, 104, 120, 60) * t,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.15,
            valign: 'bottom',
          },
        ),
        rule(safe.x, ruleY, 120 * u, { slot: 'author', stroke: 'accent', stroke_width: 8 * u }),
        ...s.layers,
      ];
    },
  },
  {
    name: 'testimonial-split',
    title: 'Customer story: photo beside the quote',
    niche: 'testimonial',
    aspect: 'landscape',
    premium: false,
    tags: ['testimonial', 'review', 'customer story', 'photo', 'split'],
    palette: {
      primary: '#2563eb',
      secondary: '#dbeafe',
      accent: '#2563eb',
      background: '#ffffff',
      text: '#0f172a',
    },
    fonts: { heading: 'Montserrat', body: 'Inter' },
    samples: {
      ...QUOTE,
      label: { short: 'Customer story', long: 'Customer story from our community of creators' },
    },
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
        const split = Math.round(f.width * 0.44);
        pic = { x: 0, y: 0, w: split, h: f.height };
        const x = split + 64 * u;
        copy = { x, y: safe.y, w: right(f) - x, h: safe.h };
      } else if (f.aspect === 'story') {
        // The photo takes the lower half, the part of a story the platform covers.
        const h = Math.round(f.height * 0.46);
        pic = { x: 0, y: f.height - h, w: f.width, h };
        copy = { x: safe.x, y: safe.y, w: safe.w, h: pic.y - 72 * u - safe.y };
      } else {
        const h = Math.round(f.height * by(f, 0.42, 0.46, 0, 0));
        pic = { x: 0, y: 0, w: f.width, h };
        const y = Math.max(h + 64 * u, safe.y);
        copy = { x: safe.x, y, w: safe.w, h: bottom(f) - y };
      }
      const labelSize = 28 * t;
      const logoW = 180 * u;
      const s = signature(f, copy.x, copy.y + copy.h, copy.w, {
        author: by(f, 36, 38, 44, 32) * t,
        role: by(f, 28, 30, 34, 26) * t,
        color: 'text',
        roleColor: 'primary',
      });
      const logoH = by(f, 64, 72, 80, 80) * u;
      const quoteY = copy.y + Math.max(lineH(labelSize), logoH) + 28 * u;
      const quoteH = s.top - 40 * u - quoteY;
      const bar = 10 * u;
      const edge = 14 * u;
      return [
        ...photo(pic, 'secondary'),
        // A band of the primary colour along the photo's inner edge.
        rect(
          f.wide
            ? { x: pic.w - edge, y: 0, w: edge, h: f.height }
            : { x: 0, y: pic.y === 0 ? pic.h - edge : pic.y, w: f.width, h: edge },
          { slot: 'photo', fill: 'primary' },
        ),
        say(
          'label',
          { x: copy.x, y: copy.y, w: copy.w - logoW - 24 * u, h: lineH(labelSize) },
          {
            size: labelSize,
            font: 'body',
            weight: 'bold',
            color: 'primary',
            upper: true,
            fit: 'ellipsis',
          },
        ),
        logo({ x: copy.x + copy.w - logoW, y: copy.y, w: logoW, h: logoH }),
        rect(
          { x: copy.x, y: quoteY + 8 * u, w: bar, h: quoteH - 16 * u },
          {
            slot: 'headline',
            fill: 'primary',
            radius: bar / 2,
          },
        ),
        say(
          'headline',
          { x: copy.x + bar + 32 * u, y: quoteY, w: copy.w - bar - 32 * u, h: quoteH },
          {
            size: by(f, 54, 62, 76, 50) * t * (f.has('photo') ? 1 : 1.3),
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.22,
            valign: 'middle',
          },
        ),
        ...s.layers,
      ];
    },
  },
  {
    name: 'testimonial-review-card',
    title: 'Five-star review with avatar',
    niche: 'testimonial',
    aspect: 'square',
    premium: false,
    tags: ['testimonial', 'review', 'rating', 'stars', 'minimal', 'avatar'],
    palette: {
      primary: '#6d28d9',
      secondary: '#ddd6fe',
      accent: '#7c3aed',
      background: '#f5f3ff',
      text: '#1e1b4b',
    },
    fonts: { heading: 'Inter', body: 'Inter' },
    samples: QUOTE,
    layout: (f) => {
      const { safe, u } = f;
      const t = typeUnit(f);
      const starSize = 44 * t;
      const logoH = by(f, 64, 72, 80, 80) * u;
      const topH = Math.max(logoH, lineH(starSize, 1));
      const avatar = by(f, 120, 136, 160, 160) * u;
      const rowY = bottom(f) - avatar;
      const mark = by(f, 90, 100, 130, 100) * u;
      const markY = safe.y + topH + by(f, 56, 72, 110, 40) * u;
      const quoteY = markY + mark + by(f, 28, 32, 40, 24) * u;
      const quoteH = rowY - by(f, 48, 64, 80, 40) * u - quoteY;
      const a: Box = { x: safe.x, y: rowY, w: avatar, h: avatar };
      const textX = f.has('photo') ? safe.x + avatar + 32 * u : safe.x;
      const s = signature(f, textX, rowY + avatar / 2 + lineH(30 * t) - 6 * u, right(f) - textX, {
        author: 36 * t,
        role: 28 * t,
        color: 'text',
        roleColor: 'primary',
      });
      return [
        // Soft discs behind the top right corner and, on tall pages, the bottom left.
        circle(f.width - 80 * u, 120 * u, 520 * u, { fill: 'secondary', opacity: 0.6 }),
        ...(f.tall
          ? [circle(f.width, f.height, 560 * u, { fill: 'secondary', opacity: 0.6 })]
          : []),
        logo({ x: safe.x, y: safe.y, w: 200 * u, h: logoH }),
        say(
          'rating',
          { x: safe.x + safe.w / 2, y: safe.y, w: safe.w / 2, h: lineH(starSize, 1) },
          {
            size: starSize,
            font: 'body',
            color: 'text',
            align: 'right',
            fit: 'ellipsis',
            line_height: 1,
          },
        ),
        ...quoteMark(safe.x, markY, mark, { slot: 'headline', fill: 'primary' }),
        say(
          'headline',
          { x: safe.x, y: quoteY, w: safe.w, h: quoteH },
          {
            size: by(f, 80, 100, 120, 64) * t,
            font: 'heading',
            weight: 'bold',
            color: 'text',
            line_height: 1.18,
            valign: f.wide ? 'middle' : 'top',
          },
        ),
        ...photo(a, 'secondary'),
        discMask(a, 'background'),
        ...s.layers,
      ];
    },
  },
];
