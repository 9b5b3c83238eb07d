// Rendering templates with example content: a thumbnail (its own aspect, short sample copy,
// a sample photo and logo) and the contact sheets that check a template at every aspect
// with short and long copy. Pure: template in, PNG bytes out, drawn in the calling thread by
// the renderer (render/canvas.ts). Only bin/ scripts and tests use it: the API serves the
// committed thumbnails, and listing.ts stays free of the native canvas.
import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { type RenderWarning, renderPng } from '../../render/canvas.ts';
import { ASPECTS, type Aspect, Layout } from '../designs/schema.ts';
import { type BrandKit, instantiate, SAMPLES, type SlotFill, type TemplateSpec } from './kit.ts';
import { slotsOf } from './listing.ts';

export const THUMBNAIL_WIDTH = 320;

/** Asset ids the sample images stand under (never looked up: the images are handed over). */
const SAMPLE_PHOTO = '1';
const SAMPLE_LOGO = '2';

let samples: Map<string, Buffer> | undefined;

/**
 * A landscape photo stand-in (sky, hills, a sun off centre, so a crop shows where it was
 * taken) and a logo mark without letters.
 */
async function sampleImages(): Promise<Map<string, Buffer>> {
  if (samples) return samples;
  const photo = createCanvas(1600, 1067);
  const p = photo.getContext('2d');
  const sky = p.createLinearGradient(0, 0, 0, 1067);
  sky.addColorStop(0, '#7dd3fc');
  sky.addColorStop(1, '#fde68a');
  p.fillStyle = sky;
  p.fillRect(0, 0, 1600, 1067);
  p.fillStyle = '#fb923c';
  p.beginPath();
  p.arc(1100, 380, 150, 0, Math.PI * 2);
  p.fill();
  for (const [color, y, amp] of [
    ['#65a30d', 700, 90],
    ['#3f6212', 820, 70],
  ] as const) {
    p.fillStyle = color;
    p.beginPath();
    p.moveTo(0, 1067);
    for (let x = 0; x <= 1600; x += 20) p.lineTo(x, y + Math.sin(x / 180) * amp);
    p.lineTo(1600, 1067);
    p.fill();
  }
  const logo = createCanvas(240, 240);
  const l = logo.getContext('2d');
  l.fillStyle = '#111827';
  l.beginPath();
  l.roundRect(0, 0, 240, 240, 56);
  l.fill();
  l.fillStyle = '#f59e0b';
  l.beginPath();
  l.arc(120, 120, 64, 0, Math.PI * 2);
  l.fill();
  samples = new Map([
    [SAMPLE_PHOTO, await photo.encode('png')],
    [SAMPLE_LOGO, await logo.encode('png')],
  ]);
  return samples;
}

export type SampleCopy = 'short' | 'long' | 'none';

/** Every slot of the template filled with its sample (`none`: no slot filled). */
export function sampleFill(t: TemplateSpec, copy: SampleCopy): SlotFill {
  const fill: SlotFill = { texts: {}, images: {} };
  if (copy === 'none') return fill;
  for (const slot of slotsOf(t)) {
    if (slot.kind === 'image')
      fill.images[slot.name] = { asset_id: slot.name === 'logo' ? SAMPLE_LOGO : SAMPLE_PHOTO };
    else {
      const sample = t.samples?.[slot.name] ?? SAMPLES[slot.name];
      if (!sample) throw new Error(`${t.name}: slot "${slot.name}" has no sample copy`);
      fill.texts[slot.name] = sample[copy];
    }
  }
  return fill;
}

/** The template rendered full size at `aspect` with `fill`: its layout, PNG and warnings. */
export async function renderTemplate(
  t: TemplateSpec,
  aspect: Aspect,
  fill: SlotFill,
  kit?: BrandKit,
): Promise<{ layout: Layout; png: Buffer; warnings: RenderWarning[] }> {
  const layout = Layout.parse(instantiate(t, aspect, fill, kit).layout);
  const { png, warnings } = await renderPng({
    ...ASPECTS[aspect],
    bg: layout.canvas.bg,
    layers: layout.layers ?? [],
    images: await sampleImages(),
  });
  return { layout, png, warnings };
}

export async function renderTemplateThumbnail(t: TemplateSpec): Promise<Buffer> {
  const { png } = await renderTemplate(t, t.aspect, sampleFill(t, 'short'));
  return sharp(png).resize({ width: THUMBNAIL_WIDTH }).png({ compressionLevel: 9 }).toBuffer();
}
