// `node bin/templateSheet.ts [name or niche ...] [--kit kit.json] [--out dir]`: a contact
// sheet per template, rendered as the tests render it: each of the four aspects with short
// copy, long copy and no copy at all (columns), a sample photo and logo in the image slots.
// Prints every text that did not fit. For checking a template by eye while writing it.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { ASPECT_NAMES } from '../core/designs/schema.ts';
import {
  type BrandKit,
  renderTemplate,
  type SampleCopy,
  sampleFill,
  TEMPLATES,
} from '../core/templates/service.ts';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args.splice(i, 2)[1];
};
const kitFile = option('--kit');
const kit: BrandKit | undefined = kitFile ? JSON.parse(readFileSync(kitFile, 'utf8')) : undefined;
const out = option('--out') ?? 'tmp/sheets';
mkdirSync(out, { recursive: true });

const CELL = 300;
const COPIES: SampleCopy[] = ['short', 'long', 'none'];
const chosen = [...TEMPLATES.values()].filter(
  (t) => !args.length || args.includes(t.name) || args.includes(t.niche),
);
for (const t of chosen) {
  const cells: { input: Buffer; left: number; top: number }[] = [];
  let top = 0;
  for (const aspect of ASPECT_NAMES) {
    let rowHeight = 0;
    for (const [c, copy] of COPIES.entries()) {
      const { png, warnings } = await renderTemplate(t, aspect, sampleFill(t, copy), kit);
      for (const w of warnings)
        console.log(`${t.name} ${aspect} ${copy}: ${w.code} ${w.cid ?? ''}`);
      const cell = await sharp(png).resize({ width: CELL }).png().toBuffer();
      const { height = 0 } = await sharp(cell).metadata();
      cells.push({ input: cell, left: c * (CELL + 10), top });
      rowHeight = Math.max(rowHeight, height);
    }
    top += rowHeight + 10;
  }
  const file = path.join(out, `${t.name}.png`);
  await sharp({
    create: { width: 3 * CELL + 20, height: top, channels: 3, background: '#808080' },
  })
    .composite(cells)
    .png()
    .toFile(file);
  console.log(`${file}`);
}
