// A template's thumbnail: the template rendered at full size with its own slot texts, then
// scaled to THUMBNAIL_WIDTH. Pure: template in, PNG bytes out.
import sharp from 'sharp';
import { ASPECTS, Layout } from '../core/designs/layout.ts';
import { layoutFromTemplate, type Template } from '../core/designs/templates.ts';
import { renderPage } from './canvas.ts';

export const THUMBNAIL_WIDTH = 320;

export async function renderTemplateThumbnail(template: Template): Promise<Buffer> {
  const layout = Layout.parse(layoutFromTemplate(template, undefined, {}));
  const page = await renderPage({
    ...ASPECTS[layout.canvas.aspect],
    bg: layout.canvas.bg,
    layers: layout.layers ?? [],
    images: new Map(),
  });
  return sharp(page).resize({ width: THUMBNAIL_WIDTH }).png({ compressionLevel: 9 }).toBuffer();
}
