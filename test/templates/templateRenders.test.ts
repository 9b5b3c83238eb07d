// Every template rendered at every aspect with short, long and no copy (the sheets
// bin/templateSheet.ts draws): no placeholder ever reaches a page (every text shown is a
// slot's given copy or glyph-only furniture, every image a given one), no text inks outside
// its frame (each text layer drawn alone: nothing above, below or beside it), and short copy
// fits without a warning. The warnings are the renderer's own fitting (textWarnings), without
// drawing whole pages.
import { describe, expect, it } from 'vitest';
import { ASPECT_NAMES, Layout } from '../../core/designs/schema.ts';
import {
  instantiate,
  isFurnitureText,
  type SampleCopy,
  sampleFill,
  TEMPLATES,
} from '../../core/templates/service.ts';
import { renderPng, textWarnings } from '../../render/canvas.ts';

const all = [...TEMPLATES.values()];

/**
 * Where a text layer inks (any pixel not fully transparent), drawn alone on a transparent
 * canvas with room around its frame (PAD pixels each side), unturned: the renderer's own
 * cut answers the box of its drawn pixels.
 */
const PAD = 40;
async function textInk(l: Extract<Layout['layers'] & {}, unknown[]>[number]) {
  if (l.kind !== 'text' || l.h === undefined) return undefined;
  const alone = { ...l, x: PAD, y: PAD, rotation: 0, opacity: 1 };
  const { box } = await renderPng({
    width: Math.ceil(l.w) + 2 * PAD,
    height: Math.ceil(l.h) + 2 * PAD,
    bg: '#00000000',
    layers: [alone],
    images: new Map(),
    cut: true,
  });
  if (!box || box.width === 0) return undefined;
  return {
    top: box.top,
    bottom: box.top + box.height - 1,
    left: box.left,
    right: box.left + box.width - 1,
  };
}

describe('every template at every aspect, with short, long and no copy', () => {
  const copies: SampleCopy[] = ['short', 'long', 'none'];
  it.each(all.map((t) => [t.name, t] as const))(
    '%s: no placeholder, no text outside its frame, short copy fits',
    async (_n, t) => {
      for (const aspect of ASPECT_NAMES)
        for (const copy of copies) {
          const fill = sampleFill(t, copy);
          const layout = Layout.parse(instantiate(t, aspect, fill).layout);
          const warnings = textWarnings(layout.layers ?? []);
          const where = `${aspect}, ${copy} copy`;
          if (copy === 'short') expect(warnings, where).toEqual([]);
          for (const l of layout.layers ?? []) {
            if (l.kind === 'image') expect(fill.images[l.slot ?? ''], where).toBeDefined();
            if (l.kind !== 'text') continue;
            // Every text shown is the copy given for its slot, or glyphs that are no copy.
            const given = l.slot ? fill.texts[l.slot] : undefined;
            if (given === undefined)
              expect(isFurnitureText(l.text), `${where}: "${l.text}"`).toBe(true);
            else expect(l.text.toLowerCase(), where).toBe(given.trim().toLowerCase());
            const ink = await textInk(l);
            if (!ink) continue;
            // Whole lines only: nothing inks below the frame's bottom edge or beside it.
            const text = `${where}: ${l.slot ?? 'furniture'} "${l.text.slice(0, 30)}"`;
            expect(ink.top, text).toBeGreaterThanOrEqual(PAD - 1);
            expect(ink.bottom, text).toBeLessThanOrEqual(PAD + l.h! + 1);
            expect(ink.left, text).toBeGreaterThanOrEqual(PAD - 3);
            expect(ink.right, text).toBeLessThanOrEqual(PAD + l.w + 3);
          }
        }
    },
  );
});

describe('a brand kit', () => {
  const kit = {
    colors: [
      { hex: '#123456', role: 'background' as const },
      { hex: '#e11d48', role: 'primary' as const },
      { hex: '#0ea5e9', role: 'secondary' as const },
      { hex: '#f59e0b', role: 'accent' as const },
      { hex: '#fafafa', role: 'text' as const },
    ],
    fonts: ['Lora', 'Oswald', 'Caveat'],
  };
  const brandColours = new Set(kit.colors.map((c) => c.hex));
  it.each(all.filter((t) => t.name !== 'blank').map((t) => [t.name, t] as const))(
    '%s takes the kit: its background, its colours, only its fonts',
    (_n, t) => {
      for (const aspect of ASPECT_NAMES) {
        const layout = Layout.parse(instantiate(t, aspect, sampleFill(t, 'short'), kit).layout);
        expect(layout.canvas.bg).toBe('#123456');
        const used = (layout.layers ?? []).flatMap((l) =>
          l.kind === 'text' ? [l.color] : l.kind === 'shape' ? [l.fill, l.stroke] : [],
        );
        expect(
          used.some((c) => c && brandColours.has(c)),
          aspect,
        ).toBe(true);
        for (const l of layout.layers ?? [])
          if (l.kind === 'text') expect(kit.fonts, `${aspect} ${l.slot}`).toContain(l.font);
      }
    },
  );
});
