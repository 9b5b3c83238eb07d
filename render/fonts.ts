// The curated fonts, shipped through npm as @fontsource WOFF2 files (open licences: SIL OFL or
// Apache 2.0) and registered with @napi-rs/canvas once per process. Latin and Latin Extended
// subsets, regular and bold. Colour emoji come from Twemoji as a COLRv0 font
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

/** Registers every font once; later calls do nothing. */
export function registerFonts(): void {
  if (registered) return;
  for (const [family, pkg] of Object.entries(FONT_PACKAGES)) {
    const dir = filesOf(pkg);
    for (const file of readdirSync(dir))
      if (/-(latin|latin-ext)-(400|700)-normal\.woff2$/.test(file))
        GlobalFonts.registerFromPath(path.join(dir, file), family);
  }
  GlobalFonts.registerFromPath(
    path.join(path.dirname(require.resolve('twemoji-colr-font/package.json')), 'twemoji.woff2'),
    EMOJI_FAMILY,
  );
  registered = true;
}
