// A template's thumbnail: the template rendered at full size with its own slot texts, then
// scaled to THUMBNAIL_WIDTH. Pure: template in, PNG bytes out, drawn in the calling thread by
// the renderer (render/canvas.ts). Only bin/renderTemplateThumbnails.ts and its test use it:
// the API serves the committed files, and templates.ts stays free of the native canvas.
import sharp from 'sharp';
import { renderPage } from '../../render/canvas.ts';
import { ASPECTS, Layout } from './layout.ts';
import { layoutFromTemplate, type Template } from './templates.ts';

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
