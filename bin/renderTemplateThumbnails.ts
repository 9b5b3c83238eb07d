// `npm run templates:thumbnails`: renders every design template (its own aspect, its own slot
// texts) with the worker's renderer and writes a 320 px wide PNG per template into
// core/templates/catalogue/thumbnails/, which is committed and served by the API. A test checks
// the committed files still match fresh renders.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderTemplateThumbnail, TEMPLATES, THUMBNAILS_DIR } from '../core/templates/service.ts';

mkdirSync(THUMBNAILS_DIR, { recursive: true });
for (const template of TEMPLATES.values()) {
  const png = await renderTemplateThumbnail(template);
  writeFileSync(path.join(THUMBNAILS_DIR, `${template.name}.png`), png);
  console.log(`${template.name}: ${png.length} bytes`);
}
