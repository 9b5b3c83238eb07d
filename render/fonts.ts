// The curated fonts, shipped through npm as @fontsource WOFF2 files (open licences: SIL OFL or
// Apache 2.0) and registered with @napi-rs/canvas once per process: every subset a font has
// (Latin, accented Latin, Cyrillic, Greek, Vietnamese), regular and bold. Colour emoji come
// from Twemoji as a COLRv0 font
// (twemoji-colr-font: font OFL-1.1, graphics CC-BY 4.0 by Twitter), every text's fallback.
// One 0.5 MB file, each emoji 1 em wide. (@napi-rs/canvas 1.0.11 uses only the first file
// registered under a family; @fontsource's numbered Noto Color Emoji subsets are SVG-only
// and sort first, so Noto drew missing-glyph boxes.)
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { GlobalFonts } from '@napi-rs/canvas';
import { FONT_PACKAGES } from './fontFamilies.ts';

export const EMOJI_FAMILY = 'Twemoji';

const require = createRequire(import.meta.url);
const filesOf = (pkg: string) =>
  path.join(path.dirname(require.resolve(`@fontsource/${pkg}/package.json`)), 'files');

let registered = false;

/**
 * The family names each font is registered under, latin first: @napi-rs/canvas uses only the
 * first file registered for a family, weight and style, so each further subset (accented
 * Latin, Cyrillic, Greek, Vietnamese) is a family of its own, named after the font
 * and listed after it as a fallback (fontStack).
 */
const subsetFamilies = new Map<string, string[]>();

/** A font's families for a CSS font string: its subsets, then colour emoji. */
export function fontStack(font: string): string {
  const families = subsetFamilies.get(font) ?? [font];
  return [...families, EMOJI_FAMILY].map((f) => `"${f}"`).join(', ');
}

const SUBSET_FILE =
  /-(latin|latin-ext|cyrillic|cyrillic-ext|greek|greek-ext|vietnamese)-(400|700)-normal\.woff2$/;

/** Registers every font once; later calls do nothing. */
export function registerFonts(): void {
  if (registered) return;
  for (const [family, pkg] of Object.entries(FONT_PACKAGES)) {
    const dir = filesOf(pkg);
    const subsets = new Set<string>();
    // Skia finds a family by the name inside the file too, which every subset shares: the
    // Latin files go first, so the font's own name finds them.
    const files = readdirSync(dir).flatMap((file) => {
      const subset = SUBSET_FILE.exec(file)?.[1];
      return subset ? [{ file, subset }] : [];
    });
    files.sort((a, b) => Number(b.subset === 'latin') - Number(a.subset === 'latin'));
    for (const { file, subset } of files) {
      const name = subset === 'latin' ? family : `${subset} ${family}`;
      GlobalFonts.registerFromPath(path.join(dir, file), name);
      subsets.add(name);
    }
    // Latin first, then the others in a fixed order.
    subsetFamilies.set(family, [family, ...[...subsets].filter((n) => n !== family).sort()]);
  }
  GlobalFonts.registerFromPath(
    path.join(path.dirname(require.resolve('twemoji-colr-font/package.json')), 'twemoji.woff2'),
    EMOJI_FAMILY,
  );
  registered = true;
}
