// The vocabulary a Canvas template is written in (core/templates/catalogue/), and the one
// function that turns a template into a layout: laid out for an aspect by its own rules, its
// slots filled or removed, its colour roles and fonts taken from a brand kit where one is
// given, every text colour checked for contrast against what it sits on.
//
// A template is a function of a Frame (the canvas size and its safe area), not one layout
// stretched: a circle stays a circle, a story uses its height, text keeps out of the parts
// of the screen a platform covers with its own buttons. Every layer that belongs to a slot
// carries the slot's name; an unfilled slot is removed with every layer that carries it (a
// button with its label, a badge with its price), so no placeholder reaches a page.
import type { z } from 'zod';
import { FONT_NAMES, type FONT_PACKAGES } from '../../render/fontFamilies.ts';
import { defaultMinSize } from '../../render/textFit.ts';
import { COLOR_ROLES, type Visual } from '../brandMemory/schema.ts';
import { ASPECTS, type Aspect, type LayerInput } from '../designs/schema.ts';

export type FontName = keyof typeof FONT_PACKAGES;
export type Box = { x: number; y: number; w: number; h: number };

/** Where a template is laid out: the canvas, one design unit, and the area to keep text in. */
export type Frame = {
  aspect: Aspect;
  width: number;
  height: number;
  /** One design unit: 1 on a 1080-wide square, smaller on the short landscape canvas. */
  u: number;
  /** Inside the margins and the platform's safe zones (the bottom of Stories and Reels). */
  safe: Box;
  /** Taller than wide (portrait, story). */
  tall: boolean;
  /** Wider than tall (landscape): text and photo usually sit side by side. */
  wide: boolean;
  /**
   * Whether a slot is filled: a template may lay the rest out differently without it (the
   * copy taking the whole page when there is no photo). Every slot is filled while the
   * template's slots are being listed.
   */
  has: (slot: string) => boolean;
};

/**
 * Safe areas in canvas pixels. Stories and Reels cover about 250 px at the top (the
 * account's name, the progress bar) and 340 px at the bottom (reply bar, captions), and
 * Reels' buttons run down the right edge.
 */
const SAFE: Record<Aspect, { top: number; right: number; bottom: number; left: number }> = {
  square: { top: 72, right: 72, bottom: 72, left: 72 },
  portrait: { top: 80, right: 72, bottom: 80, left: 72 },
  story: { top: 250, right: 120, bottom: 340, left: 72 },
  landscape: { top: 48, right: 56, bottom: 48, left: 56 },
};

export function frameOf(aspect: Aspect, has: (slot: string) => boolean = () => true): Frame {
  const { width, height } = ASPECTS[aspect];
  const s = SAFE[aspect];
  return {
    aspect,
    width,
    height,
    u: Math.min(width, height) / 1080,
    safe: { x: s.left, y: s.top, w: width - s.left - s.right, h: height - s.top - s.bottom },
    tall: height > width,
    wide: width > height,
    has,
  };
}

export type Role = (typeof COLOR_ROLES)[number];
/** A colour role (filled from the palette or the brand kit) or a fixed hex colour. */
export type Colour = Role | `#${string}`;
export type Palette = Record<Role, string>;
/** Fonts by role: the kit's first shipped font is the heading's, its second the body's, its third the accent's. */
export type FontRole = 'heading' | 'body' | 'accent';

type Common = {
  /** The slot this layer fills or decorates; removed with the slot when it is not filled. */
  slot?: string;
  x: number;
  y: number;
  w: number;
  h: number;
  rotation?: number;
  opacity?: number;
};

export type DraftText = Common & {
  kind: 'text';
  /** Furniture text (no slot): glyphs only, never words (a quote mark, a rule). */
  text?: string;
  size: number;
  /** The smallest size shrinking may reach; default 45% of `size`. */
  min_size?: number;
  font: FontRole | FontName;
  weight?: 'normal' | 'bold';
  color: Colour;
  /** What the text sits on, for the contrast check; default the background. */
  on?: Colour;
  align?: 'left' | 'center' | 'right';
  valign?: 'top' | 'middle' | 'bottom';
  line_height?: number;
  fit?: 'shrink' | 'clip' | 'ellipsis';
  /** Shown in capitals (labels, kickers). */
  upper?: boolean;
};

export type DraftShape = Common & {
  kind: 'shape';
  shape: 'rect' | 'ellipse' | 'line';
  fill?: Colour | null;
  stroke?: Colour | null;
  stroke_width?: number;
  radius?: number;
};

/** A photo or logo slot: an owned image, cover-cropped around a focal point (photo) or contained (logo). */
export type DraftImage = Common & { kind: 'image'; slot: string; fit?: 'cover' | 'contain' };

export type DraftLayer = DraftText | DraftShape | DraftImage;

/** Example copy for a slot, short and long: thumbnails, contact sheets and tests use it. */
export type Sample = { short: string; long: string };

export type TemplateSpec = {
  name: string;
  title: string;
  niche: string;
  /** The aspect its thumbnail shows; every aspect can use it. */
  aspect: Aspect;
  premium: boolean;
  tags: string[];
  palette: Palette;
  /** `accent`: a display or script face for a flourish (a handwritten note); default heading. */
  fonts: { heading: FontName; body: FontName; accent?: FontName };
  /**
   * The slots a post's copy fills, where not `headline` (its first sentence) and `body` (the
   * rest): a quote card's quote, a job card's role.
   */
  copy?: { headline?: string; body?: string };
  /** Copy for this template's thumbnail, where the shared SAMPLES do not suit it. */
  samples?: Record<string, Sample>;
  layout: (f: Frame) => DraftLayer[];
};

/** Example copy by slot name, for the slots a template does not give its own samples for. */
export const SAMPLES: Record<string, Sample> = {
  headline: {
    short: 'Ship it today',
    long: 'Everything your team needs to plan, review and publish a month of posts in one afternoon',
  },
  body: {
    short: 'Plan a week of posts in ten minutes.',
    long: 'Draft once, review together, and publish to every network on schedule. Comments, approvals and a shared calendar keep everyone on the same page, and nothing goes out before it is ready.',
  },
  label: { short: 'New', long: 'Limited time announcement for subscribers' },
  cta: { short: 'Learn more', long: 'Read the full story on our website today' },
  date: { short: 'June 12', long: 'Thursday, June 12 to Sunday, June 15' },
  time: { short: '7 PM', long: '7:00 PM to 10:30 PM Central European Time' },
  place: { short: 'Berlin', long: 'The Grand Hall, 12 Market Street, Berlin' },
  source: { short: 'Internal survey', long: 'Survey of 1,200 marketing teams, spring edition' },
  author: { short: 'Ana Ruiz', long: 'Ana Ruiz-Fernández de la Vega' },
  role: { short: 'Founder', long: 'Head of Content Strategy at a large media company' },
  price: { short: '$29', long: '$1,249.99' },
  old_price: { short: '$49', long: '$1,999.99' },
  discount: { short: '-40%', long: 'Save 40% this weekend' },
  code: { short: 'SAVE40', long: 'WEEKEND-SPECIAL-2026' },
  number: { short: '87%', long: '12,480,000' },
  handle: { short: '@yourbrand', long: '@your.brand.with.a.long.handle' },
  step: { short: '01', long: 'Step 01' },
};

/** Text of a furniture layer may hold no letters or digits: it can never read as copy. */
export const isFurnitureText = (text: string) => !/[\p{L}\p{N}]/u.test(text);

// --- Contrast (WCAG 2.x) ---

function luminance(hex: string): number {
  const h = hex.replace('#', '');
  const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h.slice(0, 6);
  const channel = (i: number) => {
    const c = Number.parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** The WCAG contrast ratio of two opaque colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The ratio AA asks of a text drawn `size` pixels tall on a canvas `width` wide: 3 for large
 * text, 4.5 otherwise. WCAG's large text is 24 CSS px (18.7 bold); a post shows about 400
 * CSS px wide on a phone, so on a 1080-wide canvas that is 65 canvas pixels (50 bold).
 */
export function requiredContrast(size: number, bold: boolean, width: number): number {
  const css = size * (400 / width);
  return css >= (bold ? 18.7 : 24) ? 3 : 4.5;
}

/**
 * A readable colour for text on `on`: `wanted` when it passes, else the palette colour that
 * passes with the most contrast, else black or white.
 */
export function readableColour(
  wanted: string,
  on: string,
  palette: Palette,
  needed: number,
): string {
  if (contrastRatio(wanted, on) >= needed) return wanted;
  const order: Role[] = ['text', 'background', 'primary', 'secondary', 'accent'];
  const passing = order
    .map((r) => palette[r])
    .filter((c) => contrastRatio(c, on) >= needed)
    .sort((a, b) => contrastRatio(b, on) - contrastRatio(a, on));
  if (passing[0]) return passing[0];
  return contrastRatio('#ffffff', on) >= contrastRatio('#000000', on) ? '#ffffff' : '#000000';
}

// --- Brand kit ---

/** A brand memory's `visual` section: colours by role, fonts, a logo. */
export type BrandKit = z.infer<typeof Visual>;

const knownFont = (name: string): FontName | undefined =>
  FONT_NAMES.find((f) => f.toLowerCase() === name.trim().toLowerCase());

/** The template's palette and fonts with the brand's where it has them. */
export function styleWith(spec: TemplateSpec, kit: BrandKit | undefined) {
  const palette = { ...spec.palette };
  for (const role of COLOR_ROLES) {
    const hex = kit?.colors?.find((c) => c.role === role)?.hex;
    if (hex) palette[role] = hex.toLowerCase();
  }
  const brandFonts = (kit?.fonts ?? []).map(knownFont).filter((f) => f !== undefined);
  const fonts: Record<FontRole, FontName> = {
    heading: brandFonts[0] ?? spec.fonts.heading,
    body: brandFonts[1] ?? brandFonts[0] ?? spec.fonts.body,
    accent: brandFonts[2] ?? brandFonts[0] ?? spec.fonts.accent ?? spec.fonts.heading,
  };
  return { palette, fonts };
}

// --- Filling ---

/**
 * An image slot's content: an owned image with an optional focal point (fractions), or an
 * owned video's frame at `frame_s`.
 */
export type ImageFill = { asset_id: string; focus?: { x: number; y: number }; frame_s?: number };
export type SlotFill = { texts: Record<string, string>; images: Record<string, ImageFill> };

export type SlotInfo = { name: string; kind: 'text' | 'image' };

/** The slots a template offers, in layer order (the same at every aspect). */
export function slotsOfSpec(spec: TemplateSpec): SlotInfo[] {
  const seen = new Map<string, SlotInfo>();
  for (const l of spec.layout(frameOf(spec.aspect))) {
    if (!l.slot || seen.has(l.slot)) continue;
    if (l.kind === 'text') seen.set(l.slot, { name: l.slot, kind: 'text' });
    if (l.kind === 'image') seen.set(l.slot, { name: l.slot, kind: 'image' });
  }
  // A slot only decorations name (a shape) is filled by nothing: it is not offered.
  return [...seen.values()];
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * The template laid out at `aspect` with `fill`'s slots filled, the rest removed with their
 * decorations, in the kit's colours and fonts (or the template's own). Answers a layout
 * input (validated by the caller) and the slots removed.
 */
export function instantiate(
  spec: TemplateSpec,
  aspect: Aspect,
  fill: SlotFill,
  kit?: BrandKit,
): { layout: { canvas: { aspect: Aspect; bg: string }; layers: LayerInput[] }; removed: string[] } {
  const { palette, fonts } = styleWith(spec, kit);
  const colour = (c: Colour) => (c.startsWith('#') ? c : palette[c as Role]);
  const filled = new Set<string>();
  const removed = new Set<string>();
  for (const l of spec.layout(frameOf(aspect))) {
    if (!l.slot) continue;
    const has =
      l.kind === 'image' ? fill.images[l.slot] !== undefined : Boolean(fill.texts[l.slot]?.trim());
    (has ? filled : removed).add(l.slot);
  }
  // A slot filled by one of its layers keeps all of them.
  for (const s of filled) removed.delete(s);

  const f = frameOf(aspect, (slot) => filled.has(slot));
  const layers: LayerInput[] = [];
  for (const l of spec.layout(f)) {
    if (l.slot && removed.has(l.slot)) continue;
    const base = {
      ...(l.slot ? { slot: l.slot } : {}),
      x: round(l.x),
      y: round(l.y),
      w: round(l.w),
      h: round(l.h),
      rotation: l.rotation ?? 0,
      opacity: l.opacity ?? 1,
    };
    if (l.kind === 'shape') {
      layers.push({
        kind: 'shape',
        ...base,
        shape: l.shape,
        fill: l.fill ? colour(l.fill) : null,
        stroke: l.stroke ? colour(l.stroke) : null,
        stroke_width: round(l.stroke_width ?? 0),
        radius: round(l.radius ?? 0),
      });
    } else if (l.kind === 'image') {
      const image = fill.images[l.slot]!;
      const fit = l.fit ?? 'cover';
      layers.push({
        kind: 'image',
        ...base,
        asset_id: image.asset_id,
        fit,
        ...(fit === 'cover' ? { focus: image.focus ?? 'auto' } : {}),
        ...(image.frame_s === undefined ? {} : { frame_s: image.frame_s }),
      });
    } else {
      const text = l.slot ? fill.texts[l.slot]!.trim() : (l.text ?? '');
      const weight = l.weight ?? 'normal';
      const font = Object.hasOwn(fonts, l.font) ? fonts[l.font as FontRole] : (l.font as FontName);
      const on = colour(l.on ?? 'background');
      const size = round(l.size);
      const minSize = round(l.min_size ?? defaultMinSize(size));
      layers.push({
        kind: 'text',
        ...base,
        text,
        size,
        min_size: minSize,
        font,
        weight,
        // Judged at the smallest size shrinking may draw it.
        color: readableColour(
          colour(l.color),
          on.slice(0, 7),
          palette,
          requiredContrast(minSize, weight === 'bold', f.width),
        ),
        align: l.align ?? 'left',
        valign: l.valign ?? 'top',
        line_height: l.line_height ?? 1.2,
        fit: l.fit ?? (l.slot ? 'shrink' : 'clip'),
        ...(l.upper ? { caps: true } : {}),
      });
    }
  }
  return {
    layout: { canvas: { aspect, bg: palette.background }, layers },
    removed: [...removed],
  };
}
