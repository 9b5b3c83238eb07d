// The small layout helpers every niche in the catalogue is written with: slot-bound text,
// shapes, photos and logos, scrims, buttons, and the arithmetic that places them on a Frame.
import type { Box, Colour, DraftImage, DraftLayer, DraftShape, DraftText, Frame } from '../kit.ts';

/** A text layer's style: everything but its kind, slot, text and frame. */
export type TextStyle = Omit<DraftText, 'kind' | 'slot' | 'text' | keyof Box>;
/** A shape layer's style: everything but its kind, shape and frame. */
export type ShapeStyle = Omit<DraftShape, 'kind' | 'shape' | keyof Box>;

// --- Text ---

/** A slot's copy in a box. */
export const slotText = (slot: string, b: Box, style: TextStyle): DraftText => ({
  kind: 'text',
  slot,
  ...b,
  ...style,
});

/** Furniture text: glyphs only, never words (a quote mark, a bullet); may belong to a slot. */
export const glyph = (
  text: string,
  b: Box,
  style: TextStyle & { slot?: string | undefined },
): DraftText => ({ kind: 'text', text, ...b, ...style });

/** One line of a slot's copy that shrinks (never wraps) to fit `b`'s width. */
export const slotLine = (
  slot: string,
  b: Box,
  size: number,
  style: Omit<TextStyle, 'size' | 'min_size' | 'line_height' | 'valign' | 'fit'>,
): DraftText =>
  // A frame 1.5 `size` high at line height 2 holds one line at `size`, never two at 45% of it.
  slotText(slot, middle(b, size * 1.5), {
    ...style,
    size,
    min_size: size * 0.45,
    line_height: 2,
    valign: 'middle',
  });

/** The unit for type: larger on landscape, which is shown as wide as a square but is short. */
export const typeUnit = (f: Frame) => (f.wide ? f.u * 1.4 : f.u);

// --- Line heights and one-line boxes ---

/** A frame tall enough for `n` lines of `size` at `lineHeight`, and not for one more. */
export const linesH = (n: number, size: number, lineHeight = 1.2) => size * (lineHeight * n + 0.2);

/** The height one line of `size` needs, descenders included: less than `linesH(1, …)`. */
export const lineH = (size: number, lineHeight = 1.2) => size * (lineHeight / 2 + 0.72);

/** A box across `b`, `h` high (at most as high as `b`), centred on `b`'s height. */
const middle = (b: Box, h: number): Box => {
  const high = Math.min(b.h, h);
  return { x: b.x, y: b.y + (b.h - high) / 2, w: b.w, h: high };
};

/** A one-line box of `size` centred on `b`'s height: `linesH(1, …)` high. */
export const oneLine = (b: Box, size: number, lineHeight = 1.15): Box =>
  middle(b, linesH(1, size, lineHeight));

/** A one-line box of `size` centred on `b`'s height, taller than `oneLine` (+0.35 `size`). */
export const oneLineLoose = (b: Box, size: number, lineHeight = 1.1): Box =>
  middle(b, size * (lineHeight + 0.35));

// --- Shapes ---

/** A rectangle (turned by `rotation`, if `b` has one). */
export const rect = (b: Box & { rotation?: number }, style: ShapeStyle): DraftShape => ({
  kind: 'shape',
  shape: 'rect',
  ...b,
  ...style,
});

/** A circle `d` across centred on cx, cy: the same width and height at every aspect. */
export const circle = (cx: number, cy: number, d: number, style: ShapeStyle): DraftShape => ({
  kind: 'shape',
  shape: 'ellipse',
  x: cx - d / 2,
  y: cy - d / 2,
  w: d,
  h: d,
  ...style,
});

/** A circle `d` across whose top left corner is at x, y (`circle` places one by its centre). */
export const circleFromCorner = (
  x: number,
  y: number,
  d: number,
  style: ShapeStyle,
): DraftShape => ({ kind: 'shape', shape: 'ellipse', x, y, w: d, h: d, ...style });

/** A line from x, y to x + w, y + h. */
export const line = (b: Box, style: ShapeStyle): DraftShape => ({
  kind: 'shape',
  shape: 'line',
  ...b,
  ...style,
});

/** A horizontal rule `w` long at x, y (its caps reach past those ends). */
export const hrule = (x: number, y: number, w: number, style: ShapeStyle): DraftShape =>
  line({ x, y, w, h: 0 }, style);

/** A vertical rule `h` long at x, y. */
export const vrule = (x: number, y: number, h: number, style: ShapeStyle): DraftShape =>
  line({ x, y, w: 0, h }, style);

/** A horizontal rule from x to x + w at y, its round caps inside those ends (unlike `hrule`). */
export const insetRule = (x: number, y: number, w: number, style: ShapeStyle): DraftShape => {
  const cap = (style.stroke_width ?? 0) / 2;
  return hrule(x + cap, y, w - 2 * cap, style);
};

/** `b` turned `deg` clockwise about cx, cy: its frame moved there, turned about its own centre. */
export function turned(b: Box, cx: number, cy: number, deg: number): Box & { rotation: number } {
  const r = (deg * Math.PI) / 180;
  const dx = b.x + b.w / 2 - cx;
  const dy = b.y + b.h / 2 - cy;
  const x = cx + dx * Math.cos(r) - dy * Math.sin(r);
  const y = cy + dx * Math.sin(r) + dy * Math.cos(r);
  return { x: x - b.w / 2, y: y - b.h / 2, w: b.w, h: b.h, rotation: deg };
}

// --- Photos and logos ---

/** The photo slot over a backing colour (shown where the photo is clear, leaves gaps or loads). */
export const photo = (b: Box, backing: Colour): DraftLayer[] => [
  rect(b, { slot: 'photo', fill: backing }),
  { kind: 'image', slot: 'photo', ...b },
];

/** The logo slot, contained in `b`. */
export const logo = (b: Box): DraftImage => ({ kind: 'image', slot: 'logo', fit: 'contain', ...b });

/** The logo, `inset` in from each side, on a rounded tile of `fill` (to show on any page). */
export const logoTile = (b: Box, fill: Colour, inset = 0.14): DraftLayer[] => [
  rect(b, { slot: 'logo', fill, radius: b.w * 0.22 }),
  logo({
    x: b.x + b.w * inset,
    y: b.y + b.h * inset,
    w: b.w * (1 - 2 * inset),
    h: b.h * (1 - 2 * inset),
  }),
];

/** Makes the square photo at `b` show as a disc by painting its corners over in `mask`. */
export function discMask(b: Box, mask: Colour, slot = 'photo'): DraftShape {
  // Images cannot be masked: a ring in the colour the photo sits on covers its corners.
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

// --- Scrims: dark fades over a photo, so text on it reads as on black ---

/** The translucent black of which `layers` stacked make black at `strength` opacity. */
const stackedBlack = (strength: number, layers: number): Colour => {
  const hex = Math.round((1 - (1 - strength) ** (1 / layers)) * 255)
    .toString(16)
    .padStart(2, '0');
  return `#000000${hex}`;
};

/** A dark fade over all of `b`, darkest (`strength`) at its bottom or left: stacked bands. */
export function stackedScrim(
  b: Box,
  toward: 'down' | 'left',
  strength: number,
  bands = 6,
): DraftShape[] {
  // Each band is shorter than the last, all of them reaching the dark edge.
  const fill = stackedBlack(strength, bands);
  return Array.from({ length: bands }, (_, i) => {
    const cut = i / bands;
    return toward === 'down'
      ? rect({ x: b.x, y: b.y + b.h * cut, w: b.w, h: b.h * (1 - cut) }, { slot: 'photo', fill })
      : rect({ x: b.x, y: b.y, w: b.w * (1 - cut), h: b.h }, { slot: 'photo', fill });
  });
}

/** A dark fade ramping to `depth` over `ramp` px from `b`'s top (or its right edge), then held. */
export function rampScrim(b: Box, dir: 'down' | 'right', ramp: number, depth = 0.62) {
  // Stacked steps of one translucent black, enough that no one step shows as a band.
  const steps = Math.max(16, Math.ceil(depth * 36));
  const fill = stackedBlack(depth, steps);
  return Array.from({ length: steps }, (_, i): DraftShape => {
    const cut = (ramp * i) / steps;
    const r: Box =
      dir === 'down'
        ? { x: b.x, y: b.y + cut, w: b.w, h: b.h - cut }
        : { x: b.x, y: b.y, w: b.w - cut, h: b.h };
    return rect(r, { slot: 'photo', fill });
  });
}

/** A dark fade from `alpha` at `b`'s bottom or left edge to clear at `clear` (a fraction of it). */
export function gradedScrim(
  b: Box,
  toward: 'down' | 'left',
  clear: number,
  alpha: number,
  slot = 'photo',
  bands = 64,
) {
  // Bands side by side, each a shade of black at its own opacity.
  const down = toward === 'down';
  const start = down ? b.y + b.h * clear : b.x;
  const end = down ? b.y + b.h : b.x + b.w * clear;
  const edge = (i: number) => Math.round(start + ((end - start) * i) / bands);
  return Array.from({ length: bands }, (_, i) => {
    const t = (i + 0.5) / bands;
    const span = edge(i + 1) - edge(i);
    return rect(
      down ? { x: b.x, y: edge(i), w: b.w, h: span } : { x: edge(i), y: b.y, w: span, h: b.h },
      { slot, fill: '#000000', opacity: alpha * Math.min(1, (down ? t : 1 - t) * 1.25) },
    );
  });
}

// --- Buttons ---

/** A button's look: its fill (null: outlined with `stroke`), and its label's colour and type. */
export type ButtonStyle = {
  fill: Colour | null;
  color: Colour;
  size: number;
  font?: DraftText['font'];
  weight?: 'normal' | 'bold';
  radius?: number;
  stroke?: Colour;
  strokeWidth?: number;
  /** What the label sits on, for the contrast check; default the fill. */
  on?: Colour;
  upper?: boolean;
};

/** A button whose label, the slot's copy, is one line in the box `label`, cut short with "…". */
function labelled(
  slot: string,
  b: Box,
  o: ButtonStyle,
  label: Box,
  lineHeight: number,
): DraftLayer[] {
  return [
    rect(b, {
      slot,
      fill: o.fill,
      radius: o.radius ?? b.h / 2,
      ...(o.stroke ? { stroke: o.stroke, stroke_width: o.strokeWidth ?? 3 } : {}),
    }),
    slotText(slot, label, {
      size: o.size,
      font: o.font ?? 'body',
      weight: o.weight ?? 'bold',
      color: o.color,
      on: o.on ?? o.fill ?? 'background',
      align: 'center',
      valign: 'middle',
      fit: 'ellipsis',
      line_height: lineHeight,
      ...(o.upper ? { upper: true } : {}),
    }),
  ];
}

/** `b` less `pad` at each side, where a button's label goes. */
const padded = (b: Box, pad: number): Box => ({ x: b.x + pad, y: b.y, w: b.w - 2 * pad, h: b.h });

/** A button's side padding that grows with it: 45% of its height, at most 12% of its width. */
const sharePad = (b: Box) => Math.min(b.h * 0.45, b.w * 0.12);

/** A button whose label is the slot's copy, in a `oneLine` box at line height 1.15. */
export const button = (slot: string, b: Box, o: ButtonStyle): DraftLayer[] =>
  labelled(slot, b, o, oneLine(padded(b, sharePad(b)), o.size), 1.15);

/** `button` with a looser label: a `oneLineLoose` box at line height 1.1. */
export const looseButton = (slot: string, b: Box, o: ButtonStyle): DraftLayer[] =>
  labelled(slot, b, o, oneLineLoose(padded(b, sharePad(b)), o.size), 1.1);

/** A button or chip: a snug `lineH` label at 1.1, `pad` (default half its height) each side. */
export const snugButton = (slot: string, b: Box, o: ButtonStyle & { pad?: number }) => {
  const h = lineH(o.size, 1.1);
  return labelled(slot, b, o, { ...padded(b, o.pad ?? b.h / 2), y: b.y + (b.h - h) / 2, h }, 1.1);
};

// --- Placing on the frame ---

/** A share of what the fixed lengths leave, for `split`. */
export type Fr = { fr: number };
/** `n` shares of what the fixed lengths leave, for `split`. */
export const fr = (n: number): Fr => ({ fr: n });

/** Cuts `length` from `start` into [start, length] spans, fixed (numbers) or `fr(n)` shares. */
export function split<const T extends readonly (number | Fr)[]>(
  start: number,
  length: number,
  sizes: T,
): { [K in keyof T]: [number, number] } {
  const fixed = sizes.reduce<number>((s, v) => s + (typeof v === 'number' ? v : 0), 0);
  const shares = sizes.reduce<number>((s, v) => s + (typeof v === 'number' ? 0 : v.fr), 0);
  const free = Math.max(0, length - fixed);
  let at = start;
  return sizes.map((v) => {
    const len = typeof v === 'number' ? v : shares ? (free * v.fr) / shares : 0;
    const span: [number, number] = [at, len];
    at += len;
    return span;
  }) as { [K in keyof T]: [number, number] };
}

/** A box from a horizontal span and a vertical one. */
export const box = ([x, w]: [number, number], [y, h]: [number, number]): Box => ({ x, y, w, h });

/** The safe area's right edge. */
export const safeRight = (f: Frame) => f.safe.x + f.safe.w;
/** The safe area's bottom edge. */
export const safeBottom = (f: Frame) => f.safe.y + f.safe.h;
/** The safe area's right and bottom edges. */
export const safeEnds = (f: Frame) => ({ right: safeRight(f), bottom: safeBottom(f) });

/** Pick by aspect: square, portrait, story, landscape. */
export const per = <T>(f: Frame, square: T, portrait: T, story: T, landscape: T): T =>
  ({ square, portrait, story, landscape })[f.aspect];
